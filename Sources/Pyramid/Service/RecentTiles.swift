import ImageCodecs

/// One event loop's own copies of the tiles it answered last, so a hot tile is answered without the shared
/// cache's lock (which both loops would take for every answer, and wait on): a direct-mapped table of 256
/// entries, each a reference to a tile the shared cache holds or held, at most `byteLimit` bytes in all.
/// Generations are unique across images and versions, so the key's generation names the image too. An entry is
/// right while its image's generation is the one in the key (a changed file has a new one) and
/// nothing was removed from the shared cache since (`LRUCache.removals`: a purge, a removed image); it may
/// outlive an eviction, which costs memory (bounded here) but never a wrong answer. Used on one thread only.
struct RecentTiles {
    private struct Entry {
        let key: TileKey
        let tile: EncodedTile
    }

    static let slots = 256
    /// Bytes the copies may keep alive beyond the shared cache's budget.
    static let byteLimit = 8 << 20
    private var entries: [Entry?]
    private var bytes = 0
    /// `LRUCache.removals` when the table was last found right.
    private var removals = 0

    init() {
        entries = Array(repeating: nil, count: Self.slots)
    }

    /// The tile for `key`, if this loop has it.
    mutating func tile(_ key: TileKey, removals now: Int) -> EncodedTile? {
        if now != removals {
            clear()
            removals = now
            return nil
        }
        guard let entry = entries[Self.slot(key)], entry.key.generation == key.generation, entry.key.tile == key.tile,
              entry.key.format == key.format else { return nil }
        return entry.tile
    }

    /// Keeps `tile` (just found in the shared cache) for the next answers, in place of its slot's entry.
    mutating func keep(_ tile: EncodedTile, for key: TileKey) {
        let slot = Self.slot(key)
        let old = entries[slot]?.tile.bytes.count ?? 0
        guard bytes - old + tile.bytes.count <= Self.byteLimit else { return }
        bytes += tile.bytes.count - old
        entries[slot] = Entry(key: key, tile: tile)
    }

    private mutating func clear() {
        for k in entries.indices { entries[k] = nil }
        bytes = 0
    }

    private static func slot(_ key: TileKey) -> Int {
        var h = UInt(bitPattern: key.generation) &* 0x9E37_79B9_7F4A_7C15
        h ^= UInt(bitPattern: key.tile.level) &* 0xC2B2_AE3D_27D4_EB4F
        h ^= UInt(bitPattern: key.tile.x) &* 0x1656_67B1_9E37_79F9
        h ^= UInt(bitPattern: key.tile.y) &* 0x27D4_EB2F_1656_67C5
        h ^= key.format == .jpeg ? 0 : key.format == .png ? 1 : 2
        h ^= h >> 29
        return Int(h % UInt(slots))
    }
}
