import POSIXSupport

/// What each master's tiles read for requests, kept beside its structure when the server stops, for a restarted
/// server or another replica to have before the views people looked at are asked for again, as PostgreSQL's
/// autoprewarm reloads the buffers its last run held. Kept under the structure's name with `.reads` for `.tsos`, in
/// the structure's format (`encode`/`decode`, so one format and one parser):
/// - the bytes read, while the block cache still holds them, up to `readBytesLimit` a master: they come with the
///   structure, in the same round trip, and are read as part of it (`RemoteFile.read`), so the tiles cost no GET;
/// - past that, or where the cache dropped them, an empty piece at each block's offset: those blocks are fetched
///   in the background as the master is first opened, with the reads ahead (`--object-prefetch`), at most a
///   quarter of the block cache at once and half of it in all (`RemoteFile.prefetchRemembered`).
extension ObjectStructures {
    static let readsKind = "reads"
    /// Ranges noted of one version at most and of all, blocks remembered of one version at most (64 MB of 256 KB
    /// blocks), versions at most, and bytes kept of one version at most.
    static let readsLimit = 4096
    static let readsTotalLimit = 1 << 18
    static let blocksLimit = 256
    static let readVersionsLimit = 4096
    static let readBytesLimit = 4 << 20

    /// Notes that `ranges` of this version were read for a request.
    func noteRead(_ path: String, _ version: ObjectVersion, _ ranges: [(offset: Int64, count: Int)]) {
        guard keeper.withLock({ $0 != nil }) else { return }
        let key = Key(path: path, tag: version.tag)
        reads.withLock { table in
            if table[key] == nil {
                guard table.count < Self.readVersionsLimit else { return }
                table[key] = (version, [:])
            }
            for range in ranges where range.count > 0 && table[key]!.ranges.count < Self.readsLimit {
                let known = table[key]!.ranges[range.offset]
                if known == nil, !readsNoted.withLock({ noted -> Bool in
                    guard noted < Self.readsTotalLimit else { return false }
                    noted += 1
                    return true
                }) { return }
                table[key]!.ranges[range.offset] = max(range.count, known ?? 0)
            }
        }
    }

    /// The blocks a process before read of this version and did not keep the bytes of, once (nil after, or when
    /// there are none).
    func takeRemembered(_ path: String, _ version: ObjectVersion) -> [Int64]? {
        remembered.withLock { $0.removeValue(forKey: Key(path: path, tag: version.tag)) }
    }

    /// `structure` with the bytes a process before kept in `bytes` (a `.reads`); its blocks without bytes are
    /// remembered for `takeRemembered`.
    func remember(_ bytes: [UInt8], key: Key, version: ObjectVersion, with structure: Structure) -> Structure {
        guard let list = Self.decode(bytes, version: version) else { return structure }
        var blocks: [Int64] = []
        for piece in list.pieces where piece.bytes.isEmpty {
            let block = piece.offset / Int64(RemoteFile.blockBytes)
            if blocks.last != block, blocks.count < Self.blocksLimit { blocks.append(block) }
        }
        if !blocks.isEmpty { remembered.withLock { $0[key] = blocks } }
        return structure.adding(list.pieces)
    }

    /// Keeps what was read in this process beside each version's structure, and all of it in one bundle
    /// (`ObjectStructures+Bundle`), 16 PUTs at a time, for at most `seconds`; at exit, before the tile store's
    /// writes are flushed.
    package func keepReads(seconds: Double = 5) {
        guard let keeper = keeper.withLock({ $0 }) else { return }
        let all = reads.withLock { table in table.filter { !$0.value.ranges.isEmpty }.map { ($0.key, $0.value) } }
        let deadline = MonotonicClock.seconds() + seconds
        // Each list made once, for its own object and the bundle.
        let lists = all.map { (key: $0.0, version: $0.1.version, list: readsList($0.0, $0.1.version, $0.1.ranges)) }
        ConcurrentWaits.run(lists.count + 1, width: 16) { i in
            guard MonotonicClock.seconds() < deadline else { return }
            guard i < lists.count else {
                if let bundle = self.bundle(lists) { keeper.save(Self.bundleName, bundle) }
                return
            }
            let (key, version, list) = lists[i]
            keeper.save(Self.keptName(key.path, version, kind: Self.readsKind), Self.encode(list, tag: version.tag))
        }
    }

    /// The ranges read of a version, joined where they overlap or touch, as pieces: their bytes where this
    /// process still holds them and the bytes kept are within `readBytesLimit`, else an empty piece at each block
    /// they cover.
    func readsList(_ key: Key, _ version: ObjectVersion, _ ranges: [Int64: Int]) -> Structure {
        let joined = Self.joined(ranges.map { (offset: $0.key, count: $0.value) }, within: version.size)
        let structure = held(key)
        var pieces: [(offset: Int64, bytes: [UInt8])] = []
        var kept = 0, blocks = 0
        for range in joined {
            let count = Int(range.end - range.offset)
            if kept + count <= Self.readBytesLimit {
                var bytes = [UInt8](repeating: 0, count: count)
                let held = structure.map { s in bytes.withUnsafeMutableBufferPointer { s.copy(into: $0.baseAddress!, count: count, at: range.offset) } } ?? false
                if held || RemoteFile.cached(key.path, version, into: &bytes, at: range.offset) {
                    pieces.append((range.offset, bytes))
                    kept += count
                    continue
                }
            }
            let bs = Int64(RemoteFile.blockBytes)
            var at = range.offset
            while at < range.end, blocks < Self.blocksLimit {
                if at / bs != (pieces.last.map { $0.offset / bs } ?? -1) || !(pieces.last?.bytes.isEmpty ?? false) {
                    pieces.append((at, []))
                    blocks += 1
                }
                at = (at / bs + 1) * bs
            }
        }
        return Structure(size: version.size, pieces: pieces)
    }
}
