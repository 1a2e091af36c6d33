#if canImport(Glibc)
import Glibc
#endif

/// A header field: as parsed (names lower-cased), or as a handler sets it on a response.
package struct HTTPHeader: Equatable, Sendable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Header fields as lines (`Name: value` and CRLF each), as a head carries them: also how a responder
    /// prebuilds the ones it sends with every fast answer.
    package static func lines(_ headers: [HTTPHeader]) -> [UInt8] {
        var lines = [UInt8]()
        for header in headers {
            lines += header.name.utf8
            lines += ": ".utf8
            lines += header.value.utf8
            lines += "\r\n".utf8
        }
        return lines
    }

    /// Whether an `If-None-Match` value names `etag` (quoted, as sent): `*`, the tag, or its weak form `W/tag`,
    /// among its elements. On bytes, so the fast path asks it without making a `String`.
    package static func ifNoneMatch(_ condition: UnsafeRawBufferPointer, names etag: String) -> Bool {
        var etag = etag
        return etag.withUTF8 { tag in
            func isTag(_ bytes: UnsafeRawBufferPointer) -> Bool {
                bytes.count == tag.count && (tag.isEmpty || memcmp(bytes.baseAddress!, tag.baseAddress!, tag.count) == 0)
            }
            var found = false
            HTTPParser.forEachElement(of: 0 ..< condition.count, in: condition) { range in
                let element = UnsafeRawBufferPointer(rebasing: condition[range])
                if element.count == 1 && element[0] == UInt8(ascii: "*") || isTag(element) { found = true }
                if element.count > 2, element[0] == UInt8(ascii: "W"), element[1] == UInt8(ascii: "/"),
                   isTag(UnsafeRawBufferPointer(rebasing: element[2...])) { found = true }
            }
            return found
        }
    }

    /// The elements of a comma-separated field value (`Connection`, `If-None-Match`, `X-Forwarded-Host`), each
    /// without the spaces and tabs around it (RFC 9110 §5.6.1).
    package static func elements(of value: String) -> [String] {
        value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { trimmed($0) }
    }

    /// `bytes` as text without leading and trailing spaces and tabs (optional white space around field values).
    static func trimmed(_ bytes: some BidirectionalCollection<UInt8>) -> String {
        let isText = { (b: UInt8) in b != 0x20 && b != 0x09 }
        guard let first = bytes.firstIndex(where: isText), let last = bytes.lastIndex(where: isText) else { return "" }
        return String(decoding: bytes[first ... last], as: UTF8.self)
    }
}
