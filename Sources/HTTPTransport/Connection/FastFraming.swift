#if canImport(Glibc)
import Glibc
#endif

/// The transport's lines of a fast answer — status, `Date`, `Server`, `Content-Length`, and the `Connection`
/// line that ends the head — written into one buffer its event loop owns, the date formatted once a second.
/// The same lines `ResponseFraming` writes for every other answer, without allocating.
final class FastFraming {
    private static let capacity = 160
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
    private var second = -1
    /// "Sun, 22 Nov 2026 14:40:00 GMT": always 29 bytes.
    private var date = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))

    deinit { buffer.deallocate() }

    /// Status line, `Date`, `Server` and `Content-Length` of a 200 (or 304, length 0) of a `length`-byte body.
    func head(notModified: Bool, length: Int) -> UnsafeRawBufferPointer {
        var at = 0
        func put(_ text: StaticString) {
            (buffer.baseAddress! + at).copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount)
            at += text.utf8CodeUnitCount
        }
        put(notModified ? "HTTP/1.1 304 Not Modified\r\nDate: " : "HTTP/1.1 200 OK\r\nDate: ")
        refreshDate()
        withUnsafeBytes(of: &date) { (buffer.baseAddress! + at).copyMemory(from: $0.baseAddress!, byteCount: 29) }
        at += 29
        put("\r\nServer: tileserver\r\nContent-Length: ")
        var n = notModified ? 0 : length, digits = 0, scratch = n
        repeat { digits += 1; scratch /= 10 } while scratch > 0
        for k in stride(from: digits - 1, through: 0, by: -1) {
            buffer[at + k] = UInt8(48 + n % 10)
            n /= 10
        }
        at += digits
        put("\r\n")
        return UnsafeRawBufferPointer(rebasing: buffer[..<at])
    }

    /// The `Connection` line and the blank line after the head.
    static func end(keepAlive: Bool) -> UnsafeRawBufferPointer {
        let text: StaticString = keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    private func refreshDate() {
        var t = time(nil)
        guard Int(t) != second else { return }
        second = Int(t)
        var parts = tm()
        gmtime_r(&t, &parts)
        withUnsafeMutableBytes(of: &date) { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            _ = strftime(out, 30, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        }
    }
}
