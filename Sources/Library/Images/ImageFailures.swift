import ImageCodecs
import POSIXSupport

/// Which images' files could not be read or decoded, and the file's stamp then: a damaged file is listed as broken
/// until it changes. Kept by id with the path it was recorded for, so a failure never passes to another file that
/// takes the id. Outages (`isTransient`) are not failures of the file and are never recorded.
final class ImageFailures: Sendable {
    private struct Failure {
        let path: String
        let error: ImageSourceError
        let stamp: FileStamp?
    }

    private let table = Locked<[String: Failure]>([:])
    private let hook = Locked<(@Sendable (String, ImageSourceError) -> Void)?>(nil)

    /// Records that image `id` (its file at `path`, whose stamp is `stamp` now) failed with `error`, and calls the
    /// hook once per version of the file; a transient error is not recorded.
    func record(_ id: String, path: String, _ error: ImageSourceError, stamp: FileStamp?) {
        guard !error.isTransient else { return }
        let isNew = table.withLock { table -> Bool in
            if let known = table[id], known.path == path, known.stamp == stamp { return false }
            table[id] = Failure(path: path, error: error, stamp: stamp)
            return true
        }
        if isNew, let hook = hook.withLock({ $0 }) { hook(id, error) }
    }

    /// Calls `hook` with the id and error of each failure recorded (once per version of its file).
    func onRecord(_ hook: @escaping @Sendable (String, ImageSourceError) -> Void) {
        self.hook.withLock { $0 = hook }
    }

    /// Why image `id`, now the file at `path` whose stamp is `stamp`, is broken: the failure recorded for that file
    /// as it is now, or nil.
    func failure(of id: String, path: String, stamp: FileStamp?) -> ImageSourceError? {
        table.withLock { table in
            guard let failure = table[id], failure.path == path, failure.stamp == stamp else { return nil }
            return failure.error
        }
    }

    /// The ids with a failure recorded (some may have changed since).
    var ids: [String] { table.withLock { Array($0.keys) } }

    /// Forgets the failures of images gone from the library.
    func forget(_ ids: some Sequence<String>) {
        table.withLock { table in for id in ids { table[id] = nil } }
    }
}
