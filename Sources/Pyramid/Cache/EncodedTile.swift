/// An encoded tile ready to send: its bytes, format and a strong validator over the bytes.
public struct EncodedTile: Sendable, Equatable {
    public let bytes: [UInt8]
    public let format: ImageFormat
    /// Quoted strong entity tag: FNV-1a 64 of the bytes.
    public let etag: String

    public init(bytes: [UInt8], format: ImageFormat) {
        self.bytes = bytes
        self.format = format
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        self.etag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// What the tile costs the cache: its bytes plus a fixed overhead for the entry.
    public var cost: Int { bytes.count + 128 }
}
