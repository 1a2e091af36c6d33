extension ImageFormat {
    private static let pngEnd: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    /// Whether `bytes` end the way a whole file of this format ends: what a tile read back from disk must show
    /// before it is served, so a file cut short by a crash is never taken for a tile.
    package func isComplete(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .jpeg: bytes.count >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[bytes.count - 2] == 0xFF && bytes[bytes.count - 1] == 0xD9
        case .png: bytes.count >= 20 && bytes[0] == 0x89 && Array(bytes.suffix(Self.pngEnd.count)) == Self.pngEnd
        // RIFF's size field counts every byte after its first eight.
        case .webp: bytes.count >= 20 && ImageFormat.detect(bytes) == .webp
            && Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24 == bytes.count - 8
        // ISO boxes, one after another, end exactly at the end: ftyp, meta and mdat all there.
        case .avif: ImageFormat.detect(bytes) == .avif && Self.boxesEndAtTheEnd(bytes)
        }
    }

    /// Whether the top-level boxes of an ISO base media file cover `bytes` exactly and hold `meta` and `mdat`.
    private static func boxesEndAtTheEnd(_ bytes: [UInt8]) -> Bool {
        var at = 0, seen = Set<String>()
        while at + 8 <= bytes.count {
            var size = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if size == 0 { size = bytes.count - at }
            guard size >= 8, size <= bytes.count - at else { return false }
            seen.insert(String(decoding: bytes[at + 4 ..< at + 8], as: UTF8.self))
            at += size
        }
        return at == bytes.count && seen.isSuperset(of: ["ftyp", "meta", "mdat"])
    }
}
