import POSIXSupport
#if canImport(Glibc)
import Glibc
#endif

/// What opening a master in object storage read (a TIFF's header and directories with their tile tables, a JPEG
/// 2000 main header, a JPEG's segments before its scan), kept per version of the object so that opening it again
/// costs no request to the master: in memory, and beside the tiles in the tile store (`keep(in:)`, the shared
/// store of every replica), keyed by the object's path, size and ETag. A replaced object has another ETag and so
/// another name: an old structure is never read for it. One per store of masters (`ImageFiles`).
package final class ObjectStructures: Sendable {
    /// One version of an object's structure: the byte ranges opening it read, sorted and merged.
    struct Structure: Sendable {
        let size: Int64
        let pieces: [(offset: Int64, bytes: [UInt8])]

        var bytes: Int { pieces.reduce(64) { $0 + $1.bytes.count + 16 } }

        /// Copies `count` bytes at `offset` into `dst` when one piece holds them all.
        func copy(into dst: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int64) -> Bool {
            guard let i = holder(count: count, at: offset) else { return false }
            let piece = pieces[i]
            piece.bytes.withUnsafeBufferPointer { dst.update(from: $0.baseAddress! + Int(offset - piece.offset), count: count) }
            return true
        }

        /// Whether one piece holds the `count` bytes at `offset`.
        func holds(count: Int, at offset: Int64) -> Bool { holder(count: count, at: offset) != nil }

        private func holder(count: Int, at offset: Int64) -> Int? {
            var low = 0, high = pieces.count
            while low < high {
                let mid = (low + high) / 2
                if pieces[mid].offset <= offset { low = mid + 1 } else { high = mid }
            }
            guard low > 0, Int(offset - pieces[low - 1].offset) + count <= pieces[low - 1].bytes.count else { return nil }
            return low - 1
        }

        /// This structure with `more` pieces of the same version (sorted; overlapping and touching ones joined).
        func adding(_ more: [(offset: Int64, bytes: [UInt8])]) -> Structure {
            var joined: [(offset: Int64, bytes: [UInt8])] = []
            for piece in (pieces + more).sorted(by: { $0.offset < $1.offset }) where !piece.bytes.isEmpty {
                if let last = joined.last, piece.offset <= last.offset + Int64(last.bytes.count) {
                    let end = last.offset + Int64(last.bytes.count), pieceEnd = piece.offset + Int64(piece.bytes.count)
                    if pieceEnd > end { joined[joined.count - 1].bytes += piece.bytes[Int(end - piece.offset)...] }
                } else {
                    joined.append(piece)
                }
            }
            return Structure(size: size, pieces: joined)
        }
    }

    struct Key: Hashable, Sendable {
        let path: String
        let tag: String
    }

    /// A structure larger than this is not kept (a TIFF with tens of thousands of tiles a level has tile tables
    /// of a few MB; reading them again is then the smaller cost).
    static let largest = 8 << 20
    /// Every master's head is kept whatever opening read of it: the metadata reader and format sniffing read it too.
    static let head = 16 << 10

    private let table = LRUCache<Key, Structure>(budget: 64 << 20, cost: { $0.bytes })
    /// The ranges of each version read for requests in this process, and the blocks a process before read without
    /// keeping their bytes, taken once (`ObjectStructures+Reads`).
    let reads = Locked<[Key: (version: ObjectVersion, ranges: [Int64: Int])]>([:])
    /// Ranges noted in `reads` in all (at most `readsTotalLimit`, so that a long run over thousands of masters
    /// keeps a bounded table).
    let readsNoted = Locked(0)
    let remembered = Locked<[Key: [Int64]]>([:])
    /// Versions the keeper was asked about and did not hold (asked once per version and process).
    private let absent = Locked<Set<Key>>([])
    private let loading = ConditionLock()
    nonisolated(unsafe) private var inFlight: Set<Key> = []   // guarded by `loading`
    let keeper = Locked<(any EntryIndexKeeper)?>(nil)
    private let counts = Locked((loaded: 0, kept: 0))
    /// Work done after an open, one job at a time on one thread (`later`): a folder of thousands of masters opened
    /// together starts one thread, not thousands; and each job waits `settle` seconds, so that the reads and the
    /// PUT of keeping a structure do not compete with the first views of the masters just opened (against SeaweedFS
    /// on the server's own two cores, keeping them at once made the Universal Viewer trace 0.41 s instead of 0.27).
    private let jobs = ConditionLock()
    static let settle = 2.0
    nonisolated(unsafe) private var queued: [(due: Double, job: @Sendable () -> Void)] = []   // guarded by `jobs`
    nonisolated(unsafe) private var working = false                       // guarded by `jobs`
    /// Jobs that may wait; past that an open's structure is not kept (the next open records it again).
    static let queueLimit = 1024

    package init() {}

    /// The names the keeper held when asked (once, as it was set): a version not among them is not asked for.
    /// Nil while the listing is under way, or when the keeper does not list (each name is then asked for).
    private let listed = Locked<(done: Bool, names: Set<String>?)>((true, nil))

    /// Keeps structures in `keeper` (the tile store) and takes them from it before reading a master's. The keeper's
    /// structures are listed at once in the background (one request for a shared store): a cold master then costs
    /// no GET for a structure that is not there, and a kept one a single GET. Beside the listing, in the same round
    /// trip, the bundle the last server to stop left is taken (`ObjectStructures+Bundle`), with reads ahead on.
    /// Asked again for the keeper it keeps in already, it does nothing: a server starts the listing beside its
    /// listing of the masters, before the tile service that asks again exists.
    package func keep(in keeper: any EntryIndexKeeper) {
        let again = self.keeper.withLock { current -> Bool in
            if let current, current as AnyObject === keeper as AnyObject { return true }
            current = keeper
            return false
        }
        guard !again else { return }
        listed.withLock { $0 = (false, nil) }
        startDetachedThread { [self] in
            let found = Locked<(names: Set<String>?, bundle: [UInt8]?)>((nil, nil))
            ConcurrentWaits.run(ObjectPrefetch.isEnabled ? 2 : 1, width: 2) { i in
                if i == 0 {
                    let started = MonotonicClock.nanoseconds()
                    let names = keeper.names(under: Self.folder)
                    found.withLock { $0.names = names }
                    // One small request before any load: a first measure of the store's distance (`ObjectPrefetch`).
                    if names != nil, keeper.isObjectStorage {
                        ObjectPrefetch.shared.observe(since: started)
                    }
                } else {
                    let bundle = keeper.load(Self.bundleName)
                    found.withLock { $0.bundle = bundle }
                }
            }
            if let bundle = found.withLock({ $0.bundle }) { take(bundle: bundle) }
            loading.withLock {
                listed.withLock { $0 = (true, found.withLock { $0.names }) }
                loading.broadcast()
            }
        }
    }

    static let folder = "object-structures"

    /// Whether the keeper may hold `name`: false only when its listing says it does not. Waits for the listing.
    func mayHold(_ name: String) -> Bool {
        loading.withLock {
            while !listed.withLock({ $0.done }) { BlockingWait.during { loading.wait() } }
        }
        return listed.withLock { $0.names?.contains(name) ?? true }
    }

    /// Structures taken from the keeper, and handed to it, so far.
    package var statistics: (loaded: Int, kept: Int) { counts.withLock { $0 } }

    /// The name a version's structure is kept under: a hash of its path, its size and a hash of its ETag.
    static func keptName(_ path: String, _ version: ObjectVersion, kind: String = "tsos") -> String {
        var hash = FNV1a()
        hash.add(words: Array(path.utf8))
        var tag = FNV1a()
        tag.add(words: Array(version.tag.utf8))
        return "\(folder)/\(hash.hex12)-\(version.size)-\(tag.hex12).\(kind)"
    }

    /// The structure of this version of the object, from memory or the keeper (one request, once); nil when
    /// neither has it.
    func structure(_ path: String, _ version: ObjectVersion) -> Structure? {
        let key = Key(path: path, tag: version.tag)
        if let hit = table.value(for: key) { return hit }
        guard let keeper = keeper.withLock({ $0 }), !absent.withLock({ $0.contains(key) }) else { return nil }
        let kept = mayHold(Self.keptName(path, version))
        if let hit = table.value(for: key, countingMiss: false) { return hit }   // a bundle's, taken while listing
        guard kept else {
            absent.withLock { _ = $0.insert(key) }
            return nil
        }
        let claimed = loading.withLock { () -> Bool in
            while inFlight.contains(key) { BlockingWait.during { loading.wait() } }
            if table.value(for: key, countingMiss: false) != nil || absent.withLock({ $0.contains(key) }) { return false }
            inFlight.insert(key)
            return true
        }
        guard claimed else { return table.value(for: key, countingMiss: false) }
        defer { loading.withLock { inFlight.remove(key); loading.broadcast() } }
        // The blocks a process before read of it, asked for beside the structure (one round trip for both).
        let readsName = Self.keptName(path, version, kind: Self.readsKind)
        let both = ObjectPrefetch.isEnabled && mayHold(readsName)
        let loaded = Locked<(structure: [UInt8]?, reads: [UInt8]?)>((nil, nil))
        ConcurrentWaits.run(both ? 2 : 1, width: 2) { i in
            if i == 0 {
                let bytes = keeper.load(Self.keptName(path, version))
                loaded.withLock { $0.structure = bytes }
            } else {
                let bytes = keeper.load(readsName)
                loaded.withLock { $0.reads = bytes }
            }
        }
        guard let bytes = loaded.withLock({ $0.structure }),
              var structure = Self.decode(bytes, version: version) else {
            absent.withLock { _ = $0.insert(key) }
            return nil
        }
        if let bytes = loaded.withLock({ $0.reads }) { structure = remember(bytes, key: key, version: version, with: structure) }
        _ = table.insert(structure, for: key)
        counts.withLock { $0.loaded += 1 }
        return structure
    }

    /// The structure of this version in memory, if any (no request; not counted as a miss).
    func held(_ key: Key) -> Structure? { table.value(for: key, countingMiss: false) }

    /// Holds `structure` in memory for this version, as taken from the keeper.
    func hold(_ structure: Structure, for key: Key) {
        _ = table.insert(structure, for: key)
        counts.withLock { $0.loaded += 1 }
    }

    /// Keeps what opening this version read (`ranges`, read again from the block cache through `read`) in
    /// memory and in the keeper. Blocking (a PUT to a shared store): called through `later`.
    func keep(_ path: String, _ version: ObjectVersion, ranges: [(offset: Int64, count: Int)],
              read: (Int64, Int) -> [UInt8]?) {
        let merged = Self.joined(ranges + [(0, Self.head)], within: version.size)
        guard merged.reduce(0, { $0 + $1.end - $1.offset }) <= Self.largest else { return }
        var pieces: [(offset: Int64, bytes: [UInt8])] = []
        for range in merged {
            guard let bytes = read(range.offset, Int(range.end - range.offset)), bytes.count == Int(range.end - range.offset) else { return }
            pieces.append((range.offset, bytes))
        }
        let structure = Structure(size: version.size, pieces: pieces)
        let key = Key(path: path, tag: version.tag)
        _ = table.insert(structure, for: key)
        absent.withLock { _ = $0.remove(key) }
        guard let keeper = keeper.withLock({ $0 }) else { return }
        let name = Self.keptName(path, version), encoded = Self.encode(structure, tag: version.tag)
        keeper.save(name, encoded)
        listed.withLock { _ = $0.names?.insert(name) }
        counts.withLock { $0.kept += 1 }
    }

    /// `ranges` sorted, cut at `size` and joined where they overlap or touch.
    static func joined(_ ranges: [(offset: Int64, count: Int)], within size: Int64) -> [(offset: Int64, end: Int64)] {
        var joined: [(offset: Int64, end: Int64)] = []
        for range in ranges.sorted(by: { $0.offset < $1.offset }) where range.count > 0 {
            let end = min(size, range.offset + Int64(range.count))
            guard range.offset < end else { continue }
            if let last = joined.last, range.offset <= last.end {
                joined[joined.count - 1].end = max(last.end, end)
            } else {
                joined.append((range.offset, end))
            }
        }
        return joined
    }

    /// Runs `job` on the structures' thread, after the jobs queued before it; dropped when too many wait.
    func later(_ job: @escaping @Sendable () -> Void) {
        let start = jobs.withLock { () -> Bool in
            guard queued.count < Self.queueLimit else { return false }
            queued.append((MonotonicClock.seconds() + Self.settle, job))
            defer { working = true }
            return !working
        }
        guard start else { return }
        startDetachedThread { [self] in
            lowerCurrentThreadPriority()
            while let next = jobs.withLock({ () -> (due: Double, job: @Sendable () -> Void)? in
                if queued.isEmpty { working = false; return nil }
                return queued.removeFirst()
            }) {
                let wait = next.due - MonotonicClock.seconds()
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                next.job()
            }
        }
    }
}

extension ObjectStructures {
    private static let magic = Array("TSOS1\n".utf8)

    /// magic, size, tag length and tag, piece count, then each piece's offset, length and bytes (little-endian).
    static func encode(_ structure: Structure, tag: String) -> [UInt8] {
        var out = magic
        func put(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        put(UInt64(structure.size))
        put(UInt64(tag.utf8.count))
        out += Array(tag.utf8)
        put(UInt64(structure.pieces.count))
        for piece in structure.pieces {
            put(UInt64(piece.offset))
            put(UInt64(piece.bytes.count))
            out += piece.bytes
        }
        return out
    }

    /// The structure in `bytes` when it is whole and of `version` (its size and ETag), else nil.
    static func decode(_ bytes: [UInt8], version: ObjectVersion) -> Structure? {
        guard let (tag, structure) = decodeAny(bytes), tag == version.tag, structure.size == version.size else { return nil }
        return structure
    }

    /// The structure in `bytes` when it is whole, with the ETag it is of, else nil.
    static func decodeAny(_ bytes: [UInt8]) -> (tag: String, structure: Structure)? {
        var at = 0
        func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, n <= bytes.count - at else { return nil }
            defer { at += n }
            return bytes[at ..< at + n]
        }
        func number() -> UInt64? {
            take(8).map { $0.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        }
        guard take(magic.count).map(Array.init) == magic, let size = number(), size < UInt64(Int64.max),
              let tagLength = number(), tagLength < 1024, let tag = take(Int(tagLength)),
              let count = number(), count <= UInt64(bytes.count / 16) else { return nil }
        var pieces: [(offset: Int64, bytes: [UInt8])] = []
        var end: UInt64 = 0
        for _ in 0 ..< count {
            guard let offset = number(), let length = number(), offset >= end, length <= UInt64(Self.largest),
                  length <= size, offset <= size - length, let piece = take(Int(length)) else { return nil }
            pieces.append((Int64(offset), Array(piece)))
            end = offset + length
        }
        guard at == bytes.count, let text = String(validating: tag, as: UTF8.self) else { return nil }
        return (text, Structure(size: Int64(size), pieces: pieces))
    }
}
