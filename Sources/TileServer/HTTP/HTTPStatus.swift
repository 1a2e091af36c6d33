/// The status codes the server sends, with their reason phrases.
struct HTTPStatus: Hashable, Sendable {
    let code: Int
    let reason: String

    static let ok = HTTPStatus(code: 200, reason: "OK")
    static let noContent = HTTPStatus(code: 204, reason: "No Content")
    static let seeOther = HTTPStatus(code: 303, reason: "See Other")
    static let temporaryRedirect = HTTPStatus(code: 307, reason: "Temporary Redirect")
    static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    static let headersTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    static let versionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")
}
