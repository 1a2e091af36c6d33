import HTTPTransport
import ImageCodecs
import POSIXSupport
import Pyramid

/// The API's kinds of response: JSON documents and errors, encoded images, documents that clients poll.
extension HTTPResponse {
    static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array((value.serialized + "\n").utf8))
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

    /// With an ETag of its body and `Cache-Control: no-cache`: for documents that change when the library does
    /// (listings, manifests), so clients that poll get a 304 until something changed.
    func tagged() -> HTTPResponse {
        var response = self
        response.headers.append(HTTPHeader(name: "ETag", value: "\"" + FNV1a(body).hex16 + "\""))
        response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-cache"))
        return response
    }

    /// A IIIF document as JSON-LD with its `profile` when the request's `Accept` asks for it, else plain JSON.
    func linkedData(profile: String, for request: HTTPRequest) -> HTTPResponse {
        guard (request.header("accept") ?? "").contains("application/ld+json") else { return self }
        var response = self
        response.contentType = "application/ld+json;profile=\"\(profile)\""
        return response
    }
}
