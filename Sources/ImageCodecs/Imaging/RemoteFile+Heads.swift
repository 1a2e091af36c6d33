/// The first bytes of every object version whose first block was fetched (by the search index, which reads
/// every master's head at start, or by an open), kept apart from the blocks, whose cache drops them: a TIFF's
/// header says where its first directory is, so an open that knows it fetches that directory together with the
/// object's end in one round of GETs (`TIFFSource.prefetchOpening`), and serves the header itself without a
/// request. Counted as 144 bytes a version (16 and 128 for its key), within `headsBudget`.
extension RemoteFile {
    /// Bytes kept of an object's start: a BigTIFF header is 16.
    static let headBytes = 16
    /// What the kept heads may take, keys included: some 29,000 masters.
    static let headsBudget = 4 << 20

    static let heads = LRUCache<BlockKey, [UInt8]>(budget: headsBudget, cost: { $0.count + 128 })

    /// Keeps the head of this version, from its first block.
    func keepHead(_ first: ObjectBlock) {
        _ = Self.heads.insert(Array(first.bytes.prefix(Self.headBytes)), for: key(0))
    }

    /// The first `count` bytes (at most `headBytes`), when kept (every first block fetched keeps them, in `store`).
    /// Nil when this version's structure is kept (its open reads nothing of the object anyway).
    func knownHead(_ count: Int) -> [UInt8]? {
        guard structure == nil, count <= Self.headBytes else { return nil }
        return Self.heads.value(for: key(0), countingMiss: false, countingHit: false).map { Array($0.prefix(count)) }
    }
}
