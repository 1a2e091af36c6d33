import CImageIO
import POSIXSupport
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of an image file, as every decoder reads them: a local file through its descriptor (pread), or an
/// object in object storage (`s3://bucket/key`) through ranged GETs and the shared block cache (`RemoteFile`).
/// The decoders get `raw`, which they copy; this object must outlive them, so readers hold it.
package final class ImageInput: @unchecked Sendable {
    package let path: String
    private let file: FileDescriptor?
    private let remote: RemoteFile?
    private let raw: tsio_input

    /// Where it was opened from, so that a source reopens it the same way (`files.open(path)`).
    package let files: ImageFiles

    /// Opens `path` for reading, failing with the image error users see (`ImageFiles.open`).
    static func open(_ path: String, files: ImageFiles) throws(ImageSourceError) -> ImageInput {
        if ImageFiles.isObject(path) { return try ImageInput(path: path, remote: RemoteFile.open(path, objects: files.objects, structures: files.structures), files: files) }
        do { return ImageInput(path: path, file: try FileDescriptor(readingAt: path), files: files) } catch {
            throw .cannotOpen(path: path, reason: error.description)
        }
    }

    private init(path: String, file: FileDescriptor, files: ImageFiles) {
        self.path = path
        self.files = files
        self.file = file
        self.remote = nil
        raw = tsio_input(fd: file.rawValue, read: nil, context: nil, size: 0)
    }

    private init(path: String, remote: RemoteFile, files: ImageFiles) {
        self.path = path
        self.files = files
        self.file = nil
        self.remote = remote
        raw = tsio_input(fd: -1, read: { context, dst, count, offset in
            Unmanaged<RemoteFile>.fromOpaque(context!).takeUnretainedValue().read(into: dst!, count: count, at: offset)
        }, context: Unmanaged.passUnretained(remote).toOpaque(), size: UInt64(remote.version.size))
    }

    /// Sets the byte budget of the blocks of objects kept in memory (it starts empty).
    public static func configureObjectCache(budget: Int) {
        RemoteFile.configure(budget: budget)
    }

    /// The blocks of objects in memory (bytes against their budget), the reads ahead made so far, and the floor of a
    /// block GET's seconds, which decides whether reads ahead are made (`ObjectPrefetch`; nil before enough GETs).
    package static var objectBlocks: (cache: CacheStatistics, prefetches: Int, readsAhead: Int, floor: Double?) {
        let prefetch = ObjectPrefetch.statistics
        return (RemoteFile.cacheStatistics, prefetch.fetches, prefetch.ahead, prefetch.floor)
    }

    /// Whether reads ahead of viewers are made in object storage (`ObjectPrefetch`).
    public static func configureObjectPrefetch(enabled: Bool) {
        ObjectPrefetch.configure(enabled: enabled)
    }

    /// For an object: fetches its last `bytes` at once, or its last `share` up to `limit` when that is more (a
    /// TIFF's directories, `RemoteFile.prefetchTail`). Nothing for a local file.
    package func prefetchTail(_ bytes: Int, share: Double = 0, limit: Int = 0) {
        remote?.prefetchTail(bytes, share: share, limit: limit)
    }

    /// For an object whose structure is not kept: fetches the bytes from `offset` to its end at once when they are
    /// at most `limit` (`RemoteFile.prefetchRest`); as what an open waits for unless `needed` is false. Nothing for
    /// a local file.
    package func prefetchRest(from offset: Int64, limit: Int, needed: Bool = true) {
        remote?.prefetchRest(from: offset, limit: limit, needed: needed)
    }

    /// For an object: starts fetching the blocks under `ranges` (those its kept structure does not hold) as what an
    /// open waits for (a TIFF's first directory). Nothing for a local file.
    package func prefetchOpening(_ ranges: [(offset: Int64, count: Int)]) {
        remote?.prefetch(ranges, ahead: false, needed: true)
    }

    /// For an object: its first `count` bytes (at most 16) when known without a request (`RemoteFile.knownHead`);
    /// nil for a local file, whose head costs no round trip.
    package func knownHead(_ count: Int) -> [UInt8]? {
        remote?.knownHead(count)
    }

    /// For an object: starts fetching its first block in the background unless it is cached or on its way (the
    /// search index reading many heads at once). Nothing for a local file.
    package func prefetchHead() {
        remote?.prefetch([(0, 1)], ahead: false)
    }

    /// For an object: starts fetching the blocks under `ranges` in the background (reads ahead of the viewer).
    package func prefetch(_ ranges: [(offset: Int64, count: Int)]) {
        remote?.prefetch(ranges, ahead: true)
    }

    /// Notes that `ranges` were read to answer a request: a later process opening this version fetches them at
    /// once (`RemoteFile.noteRead`). Nothing for a local file.
    package func noteRead(_ ranges: [(offset: Int64, count: Int)]) {
        remote?.noteRead(ranges)
    }

    /// For an object whose structure is not kept: notes what is read from now on, until `keepStructure()`.
    package func recordStructure() {
        if let remote, !remote.hasStructure { remote.startRecording() }
    }

    /// The ranges read since `recordStructure()`, recording stopped; nil when nothing was recorded.
    package func recordedStructure() -> [(offset: Int64, count: Int)]? {
        guard let ranges = remote?.recordedRanges(), !ranges.isEmpty else { return nil }
        return ranges
    }

    /// Keeps `ranges` of this object (read before, so in the block cache) as its structure (`ObjectStructures`).
    package func keepStructure(_ ranges: [(offset: Int64, count: Int)]) {
        guard let remote, let structures = files.structures else { return }
        structures.keep(path, remote.version, ranges: ranges) { offset, count in try? self.read(count: count, at: offset) }
    }

    /// Runs `body` with the input as the C decoders take it.
    package func withRaw<Result>(_ body: (UnsafePointer<tsio_input>) throws -> Result) rethrows -> Result {
        try withUnsafePointer(to: raw) { try body($0) }
    }

    /// The file's size, modification time and (for an object) ETag hash, as read now.
    package func stamp() throws(ImageSourceError) -> FileStamp {
        if let remote { return remote.version.stamp }
        do {
            let status = try file!.status()
            return FileStamp(size: status.size, modified: status.modified)
        } catch { throw .cannotOpen(path: path, reason: error.description) }
    }

    /// `count` bytes at `offset` (fewer at the end of the file).
    package func read(count: Int, at offset: Int64) throws(ImageSourceError) -> [UInt8] {
        guard count > 0 else { return [] }
        if let remote {
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBufferPointer { remote.read(into: $0.baseAddress!, count: count, at: UInt64(offset)) }
            guard n >= 0 else { throw RemoteFile.takeFailure(path: path) ?? .cannotOpen(path: path, reason: "read failed") }
            return Array(bytes.prefix(Int(n)))
        }
        do { return try file!.read(count: count, at: offset) } catch { throw .cannotOpen(path: path, reason: error.description) }
    }
}
