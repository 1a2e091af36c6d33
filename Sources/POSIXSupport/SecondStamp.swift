#if canImport(Glibc)
import Glibc
#endif

/// The current UTC time as text in a fixed `strftime` pattern, formatted again only when the second changes,
/// kept in the value itself: reading it allocates nothing. For the `Date` header and the access log's lines.
/// The text must fit in 31 bytes.
package struct SecondStamp {
    private let pattern: StaticString
    private var second = -1
    private var count = 0
    private var text = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))

    /// IMF-fixdate, as HTTP's `Date` wants it: "Sun, 22 Nov 2026 14:40:00 GMT".
    package static var imf: SecondStamp { SecondStamp(pattern: "%a, %d %b %Y %H:%M:%S GMT") }
    /// ISO 8601, as the access log writes it: "2026-11-22T14:40:00Z".
    package static var iso8601: SecondStamp { SecondStamp(pattern: "%Y-%m-%dT%H:%M:%SZ") }

    package init(pattern: StaticString) {
        self.pattern = pattern
    }

    /// Calls `body` with the text of the current second.
    package mutating func withCurrent<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var t = time(nil)
        if Int(t) != second {
            second = Int(t)
            var parts = tm()
            gmtime_r(&t, &parts)
            let format = UnsafeRawPointer(pattern.utf8Start).assumingMemoryBound(to: CChar.self) // literals end in NUL
            count = withUnsafeMutableBytes(of: &text) { raw in
                strftime(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count, format, &parts)
            }
        }
        let count = count
        return withUnsafeBytes(of: &text) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}
