import POSIXSupport
import Pyramid

/// A response before serialisation. The server adds `Date`, `Server`, `Content-Length` and `Connection` to every
/// one; the responder chain adds `Access-Control-Allow-Origin`.
struct HTTPResponse: Sendable {
    var status: HTTPStatus
    var contentType: String
    var headers: [HTTPHeader] = []
    var body: [UInt8]
    /// A body in a file (a large spooled image), sent with `sendfile` after the head; `body` is then empty.
    var file: FileBody?
    /// Close the connection after this response (limits, timeouts, broken framing).
    var close = false

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

    /// An encoded image as a response: in memory, or its spooled file.
    static func image(_ output: EncodedOutput, contentType: String, headers: [HTTPHeader]) -> HTTPResponse {
        var response = HTTPResponse(contentType: contentType, body: [], headers: headers)
        switch output {
        case let .bytes(bytes): response.body = bytes
        case let .file(descriptor, length): response.file = FileBody(descriptor: descriptor, length: length)
        }
        return response
    }

    /// Bytes of the body, wherever it is.
    var bodyLength: Int { file?.length ?? body.count }

    /// The value of header `name` (given lower-case; compared without regard to case).
    func header(_ name: String) -> String? {
        headers.first { header in
            header.name.utf8.count == name.utf8.count
                && zip(header.name.utf8, name.utf8).allSatisfy { $0 == $1 || ($0 >= 65 && $0 <= 90 && $0 + 32 == $1) }
        }?.value
    }

    /// With an ETag of its body and `Cache-Control: no-cache`: for documents that change when the library does
    /// (listings, manifests), so clients that poll get a 304 until something changed.
    func tagged() -> HTTPResponse {
        var response = self
        response.headers.append(HTTPHeader(name: "ETag", value: "\"" + FNV1a(body).hex16 + "\""))
        response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-cache"))
        return response
    }

    /// 304 in place of this response when `If-None-Match` names its ETag.
    func conditional(on request: HTTPRequest) -> HTTPResponse {
        guard status == .ok, let etag = header("etag"), let condition = request.header("if-none-match") else { return self }
        let tags = condition.split(separator: ",").map { $0.trimmingCharacters(in: " \t") }
        guard tags.contains("*") || tags.contains(etag) || tags.contains("W/" + etag) else { return self }
        return HTTPResponse(status: .notModified, contentType: contentType, body: [], headers: headers)
    }

    /// Status line and header block. `bodyLength` is what Content-Length announces (a HEAD response
    /// announces the body it does not send).
    func serializedHead(keepAlive: Bool, date: String) -> [UInt8] {
        var head = [UInt8]()
        head.reserveCapacity(256 + headers.count * 48)
        func add(_ text: String) { head.append(contentsOf: text.utf8) }
        add("HTTP/1.1 "); add(String(status.code)); add(" "); add(status.reason)
        add("\r\nDate: "); add(date); add("\r\nServer: tileserver\r\n")
        if status != .notModified || !contentType.isEmpty { add("Content-Type: "); add(contentType); add("\r\n") }
        add("Content-Length: "); add(String(status == .notModified ? 0 : bodyLength))
        add("\r\n")
        for header in headers { add(header.name); add(": "); add(header.value); add("\r\n") }
        add(keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n")
        return head
    }
}

/// `length` bytes from offset 0 of an open file, owned by the response until it is sent.
struct FileBody: Sendable {
    let descriptor: FileDescriptor
    let length: Int
}
