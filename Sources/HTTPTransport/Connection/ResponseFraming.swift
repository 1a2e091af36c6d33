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
        var head = HeadWriter(into: buffer)
        head.put("HTTP/1.1 ")
        head.put(decimal: status.code)
        head.put(" ")
        head.put(status.reason)
        head.put("\r\nDate: ")
        date.withCurrent { head.put($0) }
        head.put("\r\nServer: tileserver\r\nContent-Length: ")
        head.put(decimal: status == .notModified ? 0 : length)
        head.put("\r\n")
        return head.written
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
