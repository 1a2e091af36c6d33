/// 64-bit FNV-1a over bytes and integers (little-endian): the content fingerprint behind ETags, source versions and
/// an object's stamp (its ETag hashed). Quick and well spread, not a security hash.
package struct FNV1a: Sendable {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package init(_ bytes: [UInt8]) {
        add(bytes)
    }

    package mutating func add(_ bytes: [UInt8]) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    /// The FNV-1a step over 64-bit little-endian words instead of bytes (a short tail word is zero-padded):
    /// eight times fewer multiplications for long samples (source versions), as well spread.
    package mutating func add(words bytes: [UInt8]) {
        var hash = value
        bytes.withUnsafeBytes { raw in
            let whole = raw.count / 8
            for i in 0 ..< whole {
                hash = (hash ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))) &* 0x100_0000_01b3
            }
            if raw.count % 8 != 0 {
                var tail: UInt64 = 0
                for (k, byte) in raw[(whole * 8)...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(k)) }
                hash = (hash ^ tail) &* 0x100_0000_01b3
            }
        }
        value = hash
    }

    package mutating func add(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { add(Array($0)) }
    }

    /// All 64 bits as sixteen hex digits.
    package var hex16: String { Self.padded(value, digits: 16) }

    /// The top 48 bits as twelve hex digits.
    package var hex12: String { Self.padded(value >> 16, digits: 12) }

    private static func padded(_ number: UInt64, digits: Int) -> String {
        let text = String(number, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
