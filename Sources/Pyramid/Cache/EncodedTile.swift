/// An encoded tile ready to send: its bytes, format, the source version it was made from, and a strong validator.
public struct EncodedTile: Sendable, Equatable {
    public let bytes: [UInt8]
    public let format: ImageFormat
    /// The `SourceVersion` of the image the tile was cut from (empty when unknown).
    public let version: String
    /// Quoted strong entity tag: the version, then FNV-1a 64 of the bytes.
    public let etag: String

    public init(bytes: [UInt8], format: ImageFormat, version: String = "") {
        self.bytes = bytes
        self.format = format
        self.version = version
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        self.etag = "\"" + (version.isEmpty ? "" : version + "-") + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// What the tile costs the cache: its bytes plus a fixed overhead for the entry.
    public var cost: Int { bytes.count + 128 }
}
