#if canImport(Glibc)
import Glibc
#endif

/// An address range as written in settings (`10.0.0.0/8`, `127.0.0.1`, `::1`, `fd00::/8`), matched against a
/// connection's address as the socket gave it: the trusted proxies and who may read `/metrics`.
package struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefix: Int
    package let description: String

    /// Nil when `text` is not an IPv4 or IPv6 address with an optional `/prefix` within its length.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.parse(String(parts[0])) else { return nil }
        let bits = address.count * 8
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0 ... bits).contains(n), parts[1].allSatisfy(\.isNumber) else { return nil }
            prefix = n
        } else {
            prefix = bits
        }
        bytes = address
        description = text
    }

    /// A comma-separated list; the first element that is not a range is thrown back as text.
    package static func list(_ text: String) -> Result<[AddressRange], InvalidRange> {
        var ranges: [AddressRange] = []
        for item in text.split(separator: ",").map({ $0.trimmingCharacters() }) where !item.isEmpty {
            guard let range = AddressRange(item) else { return .failure(InvalidRange(text: item)) }
            ranges.append(range)
        }
        return .success(ranges)
    }

    package struct InvalidRange: Swift.Error, Equatable {
        package let text: String
    }

    /// Whether `address` (as `Socket.address` writes it) is in the range; an IPv4 address matches only IPv4
    /// ranges, as the socket strips the `::ffff:` form.
    package func contains(_ address: String) -> Bool {
        guard let other = Self.parse(address), other.count == bytes.count else { return false }
        var left = prefix
        for (a, b) in zip(bytes, other) {
            guard left > 0 else { return true }
            let mask: UInt8 = left >= 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
    }

    static func parse(_ text: String) -> [UInt8]? {
        var four = in_addr()
        if inet_pton(AF_INET, text, &four) == 1 { return withUnsafeBytes(of: &four) { Array($0) } }
        var six = in6_addr()
        if inet_pton(AF_INET6, text, &six) == 1 { return withUnsafeBytes(of: &six) { Array($0) } }
        return nil
    }
}

extension Substring {
    /// Without the spaces and tabs at either end.
    func trimmingCharacters() -> String {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
