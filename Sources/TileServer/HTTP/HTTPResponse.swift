/// A response before serialisation. The server adds `Date`, `Server`, `Content-Length`, `Connection` and
/// `Access-Control-Allow-Origin` to every one.
struct HTTPResponse: Sendable {
    var status: HTTPStatus
    var contentType: String
    var headers: [HTTPHeader] = []
    var body: [UInt8]
    /// Close the connection after this response (limits, timeouts, broken framing).
    var close = false
    /// For the access log: "hit", "miss" or "-".
    var cache = "-"

    init(status: HTTPStatus = .ok, contentType: String, body: [UInt8], headers: [HTTPHeader] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array((value.serialized + "\n").utf8))
    }

    static func text(_ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    /// The JSON error body every failure uses: `{"error": "...", "status": 404}`.
    static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        .json(.object([("error", .string(message)), ("status", .int(status.code))]), status: status)
    }

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }

    /// 304 in place of this response when `If-None-Match` names its ETag.
    func conditional(on request: HTTPRequest) -> HTTPResponse {
        guard status == .ok, let etag = header("etag"), let condition = request.header("if-none-match") else { return self }
        let tags = condition.split(separator: ",").map { $0.trimmingCharacters(in: " \t") }
        guard tags.contains("*") || tags.contains(etag) || tags.contains("W/" + etag) else { return self }
        var notModified = HTTPResponse(status: .notModified, contentType: contentType, body: [], headers: headers)
        notModified.cache = cache
        return notModified
    }

    /// Status line and header block. `bodyLength` is what Content-Length announces (a HEAD response
    /// announces the body it does not send).
    func serializedHead(keepAlive: Bool, date: String) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        head += "Date: \(date)\r\nServer: tileserver\r\n"
        if status != .notModified || !contentType.isEmpty { head += "Content-Type: \(contentType)\r\n" }
        head += "Content-Length: \(status == .notModified ? 0 : body.count)\r\n"
        head += "Access-Control-Allow-Origin: *\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(head.utf8)
    }
}
