import POSIXSupport

/// A response before framing. The connection adds `Date`, `Server`, `Content-Length` and `Connection` to every
/// one (`ResponseFraming`); what else it carries is the responder's.
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var contentType: String
    package var headers: [HTTPHeader] = []
    package var body: [UInt8]
    /// A body in a file (a large spooled image), sent with `sendfile` after the head; `body` is then empty.
    package var file: FileBody?
    /// Close the connection after this response (limits, timeouts, broken framing).
    package var close = false

    package init(status: HTTPStatus = .ok, contentType: String, body: [UInt8], headers: [HTTPHeader] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    package static func text(_ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    /// Bytes of the body, wherever it is.
    package var bodyLength: Int { file?.length ?? body.count }

    /// The value of header `name` (given lower-case; compared without regard to case).
    package func header(_ name: String) -> String? {
        headers.first { header in
            header.name.utf8.count == name.utf8.count
                && zip(header.name.utf8, name.utf8).allSatisfy { $0 == $1 || ($0 >= 65 && $0 <= 90 && $0 + 32 == $1) }
        }?.value
    }

    /// 304 in place of this response when `If-None-Match` names its ETag.
    package func conditional(on request: HTTPRequest) -> HTTPResponse {
        guard status == .ok, let etag = header("etag"), var condition = request.header("if-none-match"),
              condition.withUTF8({ HTTPHeader.ifNoneMatch(UnsafeRawBufferPointer($0), names: etag) }) else { return self }
        return HTTPResponse(status: .notModified, contentType: contentType, body: [], headers: headers)
    }
}

/// `length` bytes from offset 0 of an open file, owned by the response until it is sent.
package struct FileBody: Sendable {
    package let descriptor: FileDescriptor
    package let length: Int

    package init(descriptor: FileDescriptor, length: Int) {
        self.descriptor = descriptor
        self.length = length
    }
}
