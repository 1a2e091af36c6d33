/// Base64 (RFC 4648): the URL-safe alphabet without padding for cursors in URLs (§5), the standard alphabet with
/// padding for `data:` URLs (§4), which browsers decode with the standard alphabet only.
enum Base64 {
    enum Alphabet: Sendable {
        case standard, url
    }

    private static let standardDigits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlDigits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func digits(_ alphabet: Alphabet) -> [UInt8] {
        alphabet == .standard ? standardDigits : urlDigits
    }

    static func encode(_ bytes: [UInt8], _ alphabet: Alphabet) -> String {
        let digits = digits(alphabet)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var chunk = UInt32(bytes[i]) << 16
            if n > 1 { chunk |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { chunk |= UInt32(bytes[i + 2]) }
            for k in 0 ... n { out.append(digits[Int(chunk >> (18 - 6 * UInt32(k))) & 63]) }
            if alphabet == .standard { out.append(contentsOf: repeatElement(UInt8(ascii: "="), count: 3 - n)) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, or nil when it holds a character outside `alphabet` or a dangling digit. Padding
    /// (`=`) is accepted at the end of standard text only.
    static func decode(_ text: String, _ alphabet: Alphabet) -> [UInt8]? {
        let digits = digits(alphabet)
        var value: UInt32 = 0, bits = 0
        var out: [UInt8] = []
        var body = Substring(text).utf8[...]
        while alphabet == .standard, body.last == UInt8(ascii: "=") { body = body.dropLast() }
        for c in body {
            guard let digit = digits.firstIndex(of: c) else { return nil }
            value = value << 6 | UInt32(digit)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((value >> UInt32(bits)) & 0xFF))
            }
        }
        return bits >= 6 ? nil : out
    }
}
