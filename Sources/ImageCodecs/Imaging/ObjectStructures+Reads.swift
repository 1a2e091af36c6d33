import POSIXSupport

/// The blocks of each master read for requests, kept beside its structure when the server stops, and fetched at
/// once when a restarted server or another replica opens the master from that structure: the views people looked at
/// before are in the block cache before they are asked for again, as PostgreSQL's autoprewarm reloads the buffers
/// its last run held. Kept as a structure of empty pieces, one at each block's offset (`encode`/`decode`, so one
/// format and one parser), under the structure's name with `.reads` for `.tsos`. Fetched with the reads ahead
/// (`--object-prefetch`), at most a quarter of the block cache at once and half of it in all
/// (`RemoteFile.prefetchRemembered`).
extension ObjectStructures {
    static let readsKind = "reads"
    /// Blocks remembered of one version at most (64 MB of 256 KB blocks), and versions at most.
    static let readsLimit = 256
    static let readVersionsLimit = 4096

    /// Notes that block `index` of this version was read for a request.
    func noteRead(_ path: String, _ version: ObjectVersion, block index: Int64) {
        guard keeper.withLock({ $0 != nil }) else { return }
        let key = Key(path: path, tag: version.tag)
        reads.withLock { table in
            if table[key] == nil {
                guard table.count < Self.readVersionsLimit else { return }
                table[key] = (version, [])
            }
            if table[key]!.blocks.count < Self.readsLimit { table[key]!.blocks.insert(index) }
        }
    }

    /// The blocks a process before read of this version, once (nil after, or when none were kept).
    func takeRemembered(_ path: String, _ version: ObjectVersion) -> [Int64]? {
        remembered.withLock { $0.removeValue(forKey: Key(path: path, tag: version.tag)) }
    }

    func remember(_ bytes: [UInt8], key: Key, version: ObjectVersion) {
        guard let list = Self.decode(bytes, version: version) else { return }
        let blocks = list.pieces.map { $0.offset / Int64(RemoteFile.blockBytes) }.prefix(Self.readsLimit)
        remembered.withLock { $0[key] = Array(blocks) }
    }

    /// Keeps the blocks read in this process beside each version's structure, 16 PUTs at a time, for at most
    /// `seconds`; at exit, before the tile store's writes are flushed.
    package func keepReads(seconds: Double = 5) {
        guard let keeper = keeper.withLock({ $0 }) else { return }
        let all = reads.withLock { table in table.filter { !$0.value.blocks.isEmpty }.map { ($0.key, $0.value) } }
        let deadline = MonotonicClock.seconds() + seconds
        ConcurrentWaits.run(all.count, width: 16) { i in
            guard MonotonicClock.seconds() < deadline else { return }
            let (key, entry) = all[i]
            let pieces = entry.blocks.sorted().map { (offset: $0 * Int64(RemoteFile.blockBytes), bytes: [UInt8]()) }
            let list = Structure(size: entry.version.size, pieces: pieces)
            keeper.save(Self.keptName(key.path, entry.version, kind: Self.readsKind), Self.encode(list, tag: entry.version.tag))
        }
    }
}
