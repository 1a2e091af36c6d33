import POSIXSupport

/// The OpenSlide handles kept open, least recently used closed first. OpenSlide 3.4 keeps a 32 MiB cache of
/// decoded tiles in every handle and cannot be told less (`openslide_set_cache` came in 4.0); the tile cache is
/// ours, so only a few slides' handles stay open, whatever number of slides the library has shown. A handle that
/// met damage is dropped: OpenSlide reads nothing more through it.
final class SlideHandles: @unchecked Sendable {
    static let shared = SlideHandles(capacity: 4)

    private let capacity: Int
    private let lock = Locked<[(key: String, handle: SlideHandle)]>([])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The handle of the slide at `path` as it was at `stamp`, opened if none is kept; runs `body` with it.
    func with<T>(_ path: String, stamp: FileStamp, _ body: (SlideHandle) throws -> T) throws -> T {
        let key = "\(stamp.size) \(stamp.modified) \(path)"
        let kept = lock.withLock { list -> SlideHandle? in
            guard let i = list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = list.remove(at: i)
            list.append(entry)
            return entry.handle
        }
        var handle = try kept ?? SlideHandle(path: path)
        if kept == nil {
            handle = lock.withLock { list in
                // Another thread may have opened it meanwhile: one handle per slide is kept.
                if let other = list.first(where: { $0.key == key }) { return other.handle }
                list.append((key, handle))
                if list.count > capacity { list.removeFirst(list.count - capacity) }
                return handle
            }
        }
        do {
            return try body(handle)
        } catch {
            lock.withLock { $0.removeAll { $0.handle === handle } }
            throw error
        }
    }
}
