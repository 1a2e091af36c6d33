/// How a response goes on the wire, decided in this one place: the status line and the header block the
/// server adds to every response (`Date`, `Server`, `Content-Type`, `Content-Length`, `Connection`), and
/// whether body bytes follow (not for HEAD, whose `Content-Length` announces the body it does not send, nor
/// for 304).
enum ResponseFraming {
    static func head(of response: HTTPResponse, keepAlive: Bool, date: String) -> [UInt8] {
        var head = [UInt8]()
        head.reserveCapacity(256 + response.headers.count * 48)
        func add(_ text: String) { head.append(contentsOf: text.utf8) }
        let status = response.status
        add("HTTP/1.1 "); add(String(status.code)); add(" "); add(status.reason)
        add("\r\nDate: "); add(date); add("\r\nServer: tileserver\r\n")
        if status != .notModified || !response.contentType.isEmpty { add("Content-Type: "); add(response.contentType); add("\r\n") }
        add("Content-Length: "); add(String(status == .notModified ? 0 : response.bodyLength))
        add("\r\n")
        for header in response.headers { add(header.name); add(": "); add(header.value); add("\r\n") }
        add(keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n")
        return head
    }

    static func sendsBody(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        !request.isHead && response.status != .notModified
    }
}
