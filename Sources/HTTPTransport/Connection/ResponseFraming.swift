import POSIXSupport

/// How a response goes on the wire, decided in this one place: the status line and the lines the server adds
/// to every response (`Date`, `Server`, `Content-Length`, `Connection`) around the responder's own fields, and
/// whether body bytes follow (not for HEAD, whose `Content-Length` announces the body it does not send, nor for
/// 304). One per event loop: the start lines are written into a buffer it owns with the date formatted once a
/// second, so framing a fast answer allocates nothing.
final class ResponseFraming {
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
    private var date = SecondStamp.imf

    deinit { buffer.deallocate() }

    /// Status line, `Date`, `Server` and `Content-Length` (0 for a 304) of an answer with a `length`-byte body,
    /// valid until the next call.
    func start(_ status: HTTPStatus, length: Int) -> UnsafeRawBufferPointer {
        var at = 0
        func put(_ bytes: UnsafeRawBufferPointer) {
            let n = min(bytes.count, buffer.count - at)
            if n > 0 { (buffer.baseAddress! + at).copyMemory(from: bytes.baseAddress!, byteCount: n) }
            at += n
        }
        func put(_ text: StaticString) { put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func put(_ number: Int) {
            var n = number, digits = 0, scratch = n
            repeat { digits += 1; scratch /= 10 } while scratch > 0
            guard at + digits <= buffer.count else { return }
            for k in stride(from: digits - 1, through: 0, by: -1) {
                buffer[at + k] = UInt8(48 + n % 10)
                n /= 10
            }
            at += digits
        }
        put("HTTP/1.1 ")
        put(status.code)
        put(" ")
        var reason = status.reason
        reason.withUTF8 { put(UnsafeRawBufferPointer($0)) }
        put("\r\nDate: ")
        let out = buffer, from = at // the closure captures no variable: a captured one would be boxed on the heap
        at += date.withCurrent { text in
            let n = min(text.count, out.count - from)
            (out.baseAddress! + from).copyMemory(from: text.baseAddress!, byteCount: n)
            return n
        }
        put("\r\nServer: tileserver\r\nContent-Length: ")
        put(status == .notModified ? 0 : length)
        put("\r\n")
        return UnsafeRawBufferPointer(rebasing: buffer[..<at])
    }

    /// The whole head of `response`, to queue.
    func head(of response: HTTPResponse, keepAlive: Bool) -> [UInt8] {
        var head = Array(start(response.status, length: response.bodyLength))
        if response.status != .notModified || !response.contentType.isEmpty {
            head += HTTPHeader.lines([HTTPHeader(name: "Content-Type", value: response.contentType)])
        }
        head += HTTPHeader.lines(response.headers)
        head += Self.end(keepAlive: keepAlive)
        return head
    }

    /// The `Connection` line and the blank line after the head.
    static func end(keepAlive: Bool) -> UnsafeRawBufferPointer {
        let text: StaticString = keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    static func sendsBody(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        !request.isHead && response.status != .notModified
    }
}
