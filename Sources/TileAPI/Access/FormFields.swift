#if canImport(Glibc)
import Glibc
#endif
import POSIXSupport

/// The small texts a browser sends that access control reads: a `Cookie` header's values and an
/// `application/x-www-form-urlencoded` body. Pure and bounded, so fuzzed alone.
enum FormFields {
    /// The value of cookie `name` in the request's `Cookie` headers (the first one), read as the fast path reads
    /// one field in place, so both always agree.
    static func cookie(_ name: String, in headers: [String]) -> String? {
        var name = name
        return name.withUTF8 { wanted in
            for header in headers {
                var header = header
                if let found = header.withUTF8({ value(UnsafeRawBufferPointer(wanted), in: UnsafeRawBufferPointer($0)) }) { return found }
            }
            return nil
        }
    }

    /// The value of cookie `name` in one `Cookie` field's bytes, read in place (the fast tile path's way): the
    /// first pair of that name, its quotes removed; nil when there is none.
    static func cookie(_ name: String, in bytes: UnsafeRawBufferPointer) -> String? {
        var name = name
        return name.withUTF8 { value(UnsafeRawBufferPointer($0), in: bytes) }
    }

    /// The value of the first `wanted=value` pair of a `Cookie` field's bytes.
    private static func value(_ wanted: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> String? {
        guard !wanted.isEmpty else { return nil }
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ";") { end += 1 }
            var (low, high) = (start, end)
            while low < high, bytes[low] == 0x20 || bytes[low] == 0x09 { low += 1 }
            while high > low, bytes[high - 1] == 0x20 || bytes[high - 1] == 0x09 { high -= 1 }
            var equals = low + wanted.count
            while equals < high, bytes[equals] == 0x20 || bytes[equals] == 0x09 { equals += 1 }
            if equals < high, bytes[equals] == UInt8(ascii: "="), memcmp(bytes.baseAddress! + low, wanted.baseAddress!, wanted.count) == 0 {
                var value = equals + 1 ..< high
                while value.lowerBound < value.upperBound, bytes[value.lowerBound] == 0x20 || bytes[value.lowerBound] == 0x09 {
                    value = value.lowerBound + 1 ..< value.upperBound
                }
                if value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\""), bytes[value.upperBound - 1] == UInt8(ascii: "\"") {
                    value = value.lowerBound + 1 ..< value.upperBound - 1
                }
                return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[value]), as: UTF8.self)
            }
            start = end + 1
        }
        return nil
    }

    /// The fields of a form body (`a=1&b=x+y%21`), decoded; nil when an escape is malformed or a text is not UTF-8.
    static func form(_ body: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).prefix(64) {
            let eq = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            guard let name = decode(pair[pair.startIndex ..< eq]),
                  let value = decode(eq < pair.endIndex ? pair[(eq + 1)...] : [][...]) else { return nil }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// `+` as space, `%XX` as its byte; nil for a malformed escape or bytes that are not UTF-8.
    static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(0x20)
            } else if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex,
                      let high = PathText.hexDigit(bytes[i + 1]), let low = PathText.hexDigit(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 2
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(validating: out, as: UTF8.self)
    }
}
