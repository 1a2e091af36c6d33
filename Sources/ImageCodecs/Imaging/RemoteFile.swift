import POSIXSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One version of an object in object storage read by range: blocks of `blockBytes` fetched with ranged GETs
/// conditional on the ETag (`If-Match`, so a replaced object is an error, never a mix of two versions) and kept
/// in a block cache shared by every object, counted against its byte budget. Reads that follow on from the last
/// fetch (a decode pass streaming a JPEG or PNG) fetch more blocks at once, doubling up to `readAhead` while they
/// go on in sequence; a tile here and there costs its own block or two. A block being fetched is waited
/// for, not fetched twice (a thumbnail pass and a tile's decode starting on one master together).
final class RemoteFile: @unchecked Sendable {
    static let blockBytes = 256 << 10
    static let readAhead = 8

    struct BlockKey: Hashable, Sendable {
        let path: String
        let etag: String
        let index: Int64
    }

    /// Every object's blocks, least recently used dropped first past the budget (`configure(budget:)`).
    static let blocks = Locked(LRUCache<BlockKey, ObjectBlock>(budget: 256 << 20, cost: { $0.capacity + 96 }))

    /// Sets the block cache's byte budget (it starts empty, and so do the heads kept).
    package static func configure(budget: Int) {
        blocks.withLock { $0 = LRUCache(budget: budget, cost: { $0.capacity + 96 }) }
        _ = heads.removeAll { _ in true }
        remembered.withLock { $0 = 0 }
    }

    package static var cacheStatistics: CacheStatistics { blocks.withLock { $0 }.statistics }

    let path: String
    let version: ObjectVersion
    let objects: any ObjectBytes
    /// What opening this version read before, with the tiles a process before read of it (`ObjectStructures`),
    /// served without a request.
    let structure: ObjectStructures.Structure?
    /// Where the blocks read for requests are noted (`noteRead`).
    private let structures: ObjectStructures?
    /// The ranges read while recording (opening a master whose structure is not kept).
    private let recorded = Locked<[(offset: Int64, count: Int)]?>(nil)
    /// Whether `recorded` is on: every read asks, and only an open records.
    private let recording = Atomic<Bool>(false)
    /// The last block fetched, how many fetches in a row followed on from the one before, and while a decode
    /// streams through the object the first block not yet asked for (else -1).
    let sequence = Locked<(last: Int64, streak: Int, ahead: Int64)>((-2, 0, -1))

    static func open(_ path: String, objects: (any ObjectBytes)?, structures: ObjectStructures?) throws(ImageSourceError) -> RemoteFile {
        guard let objects else {
            throw .cannotOpen(path: path, reason: "object storage is not configured (see docs/deployment.md, Object storage)")
        }
        do {
            let version = try objects.version(of: path)
            let file = RemoteFile(path: path, version: version, objects: objects, structure: structures?.structure(path, version),
                                  structures: structures)
            file.prefetchRemembered()
            return file
        } catch {
            throw imageError(error, path: path)
        }
    }

    private init(path: String, version: ObjectVersion, objects: any ObjectBytes, structure: ObjectStructures.Structure?,
                 structures: ObjectStructures?) {
        self.path = path
        self.version = version
        self.objects = objects
        self.structure = structure
        self.structures = structures
    }

    /// Whether this version's structure was kept (opening it reads nothing of the object).
    var hasStructure: Bool { structure != nil }

    /// Notes every range read from now until `recordedRanges()`.
    func startRecording() {
        recorded.withLock { $0 = [] }
        recording.store(true, ordering: .releasing)
    }

    /// The ranges read since `startRecording()`, and recording stopped.
    func recordedRanges() -> [(offset: Int64, count: Int)] {
        recording.store(false, ordering: .releasing)
        return recorded.withLock { ranges in
            defer { ranges = nil }
            return ranges ?? []
        }
    }

    /// The image error for what the store said about `path`.
    static func imageError(_ error: ObjectReadError, path: String) -> ImageSourceError {
        switch error {
        case let .unavailable(reason): .unavailable(path: path, reason: reason)
        case .changed: .changed(path: path)
        case let .failed(reason): .cannotOpen(path: path, reason: reason)
        }
    }

    /// Fills `dst` with up to `count` bytes at `offset`: the count read (fewer only at the end), or -1 with the
    /// reason kept for `takeFailure` on this thread.
    func read(into dst: UnsafeMutablePointer<UInt8>, count: Int, at offset: UInt64) -> Int64 {
        let size = UInt64(version.size)
        guard offset < size else { return 0 }
        let end = min(size, offset + UInt64(count))
        if recording.load(ordering: .acquiring) { recorded.withLock { $0?.append((Int64(offset), Int(end - offset))) } }
        if let structure, structure.copy(into: dst, count: Int(end - offset), at: Int64(offset)) { return Int64(end - offset) }
        if end <= UInt64(Self.headBytes), let head = Self.heads.value(for: key(0), countingMiss: false), head.count >= Int(end) {
            head.withUnsafeBufferPointer { UnsafeMutableRawPointer(dst).copyMemory(from: $0.baseAddress! + Int(offset), byteCount: Int(end - offset)) }
            return Int64(end - offset)
        }
        var at = offset
        while at < end {
            let index = Int64(at / UInt64(Self.blockBytes))
            let block: ObjectBlock
            do throws(ObjectReadError) { block = try self.block(index) } catch {
                if case .changed = error { objects.refresh(path) }
                Self.setFailure(Self.imageError(error, path: path))
                errno = EIO
                return -1
            }
            let within = Int(at - UInt64(index) * UInt64(Self.blockBytes))
            let n = min(Int(end - at), block.count - within)
            guard n > 0 else { break }
            UnsafeMutableRawPointer(dst + Int(at - offset)).copyMemory(from: block.bytes.baseAddress! + within, byteCount: n)
            at += UInt64(n)
        }
        return Int64(at - offset)
    }

    /// Starts fetching the blocks a process before read of this version for its requests (`noteRead`), once per
    /// process, as the version is first opened: the search index opens every master at start, so a restarted
    /// server fetches what the one before read in the background, as PostgreSQL's autoprewarm does. In all at most
    /// half the block cache's budget is taken so, so that a library of thousands of masters does not churn it.
    private func prefetchRemembered() {
        guard let blocks = structures?.takeRemembered(path, version), !blocks.isEmpty else { return }
        let cap = Self.blocks.withLock { $0 }.statistics.budget / 2 / Self.blockBytes
        let allowed = Self.remembered.withLock { taken -> Int in
            let n = max(0, min(blocks.count, cap - taken))
            taken += n
            return n
        }
        guard allowed > 0 else { return }
        prefetch(blocks.prefix(allowed).map { (offset: $0 * Int64(Self.blockBytes), count: Self.blockBytes) }, ahead: false,
                 remembered: true)
    }

    /// Remembered blocks fetched so far in this process (`prefetchRemembered`), reset with the cache's budget.
    private static let remembered = Locked(0)

    /// Notes that `ranges` were read to answer a request (a TIFF's tiles), to be kept for a process that opens this
    /// version later (`ObjectStructures.keepReads`).
    func noteRead(_ ranges: [(offset: Int64, count: Int)]) {
        structures?.noteRead(path, version, ranges)
    }

    /// Fills `dst` with the `dst.count` bytes of this version at `offset` when the block cache holds them all (no
    /// request); whether it did.
    static func cached(_ path: String, _ version: ObjectVersion, into dst: inout [UInt8], at offset: Int64) -> Bool {
        let cache = blocks.withLock { $0 }
        var at = offset
        let end = offset + Int64(dst.count)
        while at < end {
            let index = at / Int64(blockBytes)
            guard let block = cache.value(for: BlockKey(path: path, etag: version.tag, index: index), countingMiss: false,
                                          countingHit: false) else { return false }
            let within = Int(at - index * Int64(blockBytes)), n = min(Int(end - at), block.count - within)
            guard n > 0 else { return false }
            dst.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: Int(at - offset)).copyMemory(from: block.bytes.baseAddress! + within, byteCount: n) }
            at += Int64(n)
        }
        return true
    }

    /// Starts fetching the bytes from `offset` to the object's end in the background, in runs of 2 MB at once,
    /// when they are at most `limit` and this version's structure is not kept: a pyramidal TIFF's reduced levels
    /// and their directories (a writer such as libvips puts each directory after its level's data, so reading them
    /// one by one is a chain of round trips). On the threads of what an open needs unless `needed` is false.
    func prefetchRest(from offset: Int64, limit: Int, needed: Bool = true) {
        guard structure == nil, offset > 0, offset < version.size, version.size - offset <= Int64(limit) else { return }
        prefetch([(offset, Int(version.size - offset))], ahead: false, needed: needed)
    }

    /// Starts fetching the last `bytes` of the object in the background (unless cached), or its last `share` when
    /// that is more, up to `limit`: where TIFF writers put their directories, after each level's data. In runs of at
    /// most 2 MB at once; the reads that need them wait for those GETs, which meanwhile run beside the first block's.
    func prefetchTail(_ bytes: Int, share: Double = 0, limit: Int = 0) {
        guard structure == nil else { return }
        let count = max(bytes, min(limit, Int(Double(version.size) * share)))
        prefetch([(max(0, version.size - Int64(count)), count)], ahead: false, needed: true)
    }

    /// The last failure a read of `path` met on this thread, taken (so it is reported once). One that nobody took
    /// (a TIFF open that forgave a failed later directory) stays until the next failure on the thread replaces it:
    /// it can only make a later error of the same object on that thread look transient (503, tried again), never
    /// the reverse. Dropping it on the next good read would risk the reverse within one decode that reads on after
    /// a failed read, which would record an outage as a broken file.
    static func takeFailure(path: String) -> ImageSourceError? {
        failures.withLock { table -> ImageSourceError? in
            let me = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
            guard let failure = table[me], failure.path == path else { return nil }
            table[me] = nil
            return failure
        }
    }

    private static let failures = Locked<[UInt: ImageSourceError]>([:])

    private static func setFailure(_ failure: ImageSourceError) {
        failures.withLock { $0[UInt(pthread_self())] = failure }
    }
}
