import POSIXSupport

/// What a stopping server read of its masters, in one object: each version's structure with the bytes its tiles
/// were read from (`readsList`), up to `bundleLimit` in all, kept under `bundleName` when the server stops
/// (`keepReads`). A server starting on the same tile store asks for it beside the listing of the kept structures, in
/// the same round trip, before any master is opened: the masters looked at before the restart then open and serve
/// those tiles with no further request. Entries are keyed by path and ETag like every kept structure, so a
/// replaced object is never read through one. One bundle a tile store: replicas sharing a store overwrite each
/// other's, and the one that stopped last is taken. Taken with the reads ahead (`--object-prefetch`).
extension ObjectStructures {
    static let bundleName = "\(folder)/last-run.bundle"
    /// Bytes of structures and reads a bundle holds at most.
    static let bundleLimit = 16 << 20
    private static let bundleMagic = Array("TSOB1\n".utf8)

    /// The bundle of `lists` (each version's `readsList`) with their structures in memory (nil if none is).
    func bundle(_ lists: [(key: Key, version: ObjectVersion, list: Structure)]) -> [UInt8]? {
        var entries: [(path: String, structure: [UInt8])] = []
        var total = 0
        for (key, version, list) in lists.sorted(by: { $0.key.path < $1.key.path }) {
            guard let structure = held(key) else { continue }
            let whole = structure.adding(list.pieces)
            let encoded = Self.encode(whole, tag: version.tag)
            guard total + encoded.count <= Self.bundleLimit else { continue }
            total += encoded.count
            entries.append((key.path, encoded))
        }
        return entries.isEmpty ? nil : Self.encodeBundle(entries)
    }

    /// Takes the structures in a bundle into memory.
    func take(bundle bytes: [UInt8]) {
        for entry in Self.decodeBundle(bytes) ?? [] {
            let key = Key(path: entry.path, tag: entry.tag)
            if held(key) == nil { hold(entry.structure, for: key) }
        }
    }

    /// magic, entry count, then each entry's path length and path, and its structure's length and `encode`d bytes.
    static func encodeBundle(_ entries: [(path: String, structure: [UInt8])]) -> [UInt8] {
        var out = bundleMagic
        func put(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        put(UInt64(entries.count))
        for entry in entries {
            put(UInt64(entry.path.utf8.count))
            out += Array(entry.path.utf8)
            put(UInt64(entry.structure.count))
            out += entry.structure
        }
        return out
    }

    /// The entries of a whole bundle (each structure whole), else nil.
    static func decodeBundle(_ bytes: [UInt8]) -> [(path: String, tag: String, structure: Structure)]? {
        var at = 0
        func take(_ n: UInt64) -> ArraySlice<UInt8>? {
            guard n <= UInt64(bytes.count - at) else { return nil }
            defer { at += Int(n) }
            return bytes[at ..< at + Int(n)]
        }
        func number() -> UInt64? {
            take(8).map { $0.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        }
        guard take(UInt64(bundleMagic.count)).map(Array.init) == bundleMagic, let count = number(),
              count <= UInt64(bytes.count / 16) else { return nil }
        var entries: [(path: String, tag: String, structure: Structure)] = []
        for _ in 0 ..< count {
            guard let pathLength = number(), pathLength <= 4096, let path = take(pathLength), let length = number(),
                  let encoded = take(length), let (tag, structure) = decodeAny(Array(encoded)),
                  let text = String(validating: path, as: UTF8.self) else { return nil }
            entries.append((text, tag, structure))
        }
        return at == bytes.count ? entries : nil
    }
}
