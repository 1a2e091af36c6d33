import HTTPTransport
import POSIXSupport
import Pyramid
import ImageCodecs
import TileGeometry

/// A request the API refuses, with the status it deserves and a message that says what would be accepted.
package enum APIError: Swift.Error, Sendable, CustomStringConvertible {
    case badRequest(String)
    case notFound(String)
    /// Nobody gets this, whoever they are (403 without a sign-in's pointers).
    case forbidden(String)
    case notImplemented(String)
    case unavailable(String)
    /// The request names an old version of the image; `location` is the same request for the current one.
    case staleVersion(location: String)
    /// The request names an image by the id an earlier version of the server gave it; `location` is the same
    /// request with today's id.
    case renamed(location: String)
    /// Access control's refusal: not signed in (401) or signed in without the group (403); the answer points
    /// at the sign-in page and lists the image's IIIF Authorization Flow services (`services`), when one is named.
    case refused(signedIn: Bool, String, services: JSONValue? = nil)

    package var description: String {
        switch self {
        case let .badRequest(m), let .notFound(m), let .forbidden(m), let .notImplemented(m), let .unavailable(m), let .refused(_, m, _): m
        case let .staleVersion(location): "this image has a newer version: \(location)"
        case let .renamed(location): "this image's id has changed: \(location)"
        }
    }

    /// A file that is damaged, not an image or over the size limits is 422 (the request is fine, the file cannot
    /// be shown); one the server may not read is 403, one gone is 404; one that changed while it was read is 503
    /// (asking again reads the new file); the rest (memory, encoding) are ours: 500.
    static func status(of error: ImageSourceError) -> HTTPStatus {
        if error.isDamage { return .unprocessableContent }
        if case .changed = error { return .serviceUnavailable }
        if case .unavailable = error { return .serviceUnavailable }
        if case let .cannotOpen(_, reason) = error {
            if reason.hasSuffix("Permission denied") { return .forbidden }
            if reason.hasSuffix("No such file or directory") { return .notFound }
        }
        return .internalServerError
    }

    /// An error as a response words it: files named by their name alone (a server's paths are its own).
    static func message(for error: any Swift.Error) -> String {
        switch error {
        case let error as ImageSourceError: error.publicDescription
        default: "\(error)"
        }
    }

    /// The one place errors become HTTP statuses.
    static func response(for error: any Swift.Error) -> HTTPResponse {
        switch error {
        case let error as APIError:
            switch error {
            case .badRequest: return .error(.badRequest, error.description)
            case .notFound: return .error(.notFound, error.description)
            case .forbidden: return .error(.forbidden, error.description)
            case .notImplemented: return .error(.notImplemented, error.description)
            case .unavailable: return .error(.serviceUnavailable, error.description)
            case let .refused(signedIn, message, services):
                var response = HTTPResponse.json(.object([
                    ("error", .string(message)), ("status", .int(signedIn ? 403 : 401)),
                    ("login", .string(AuthHandler.loginPath)),
                ] + (services.map { [("service", $0)] } ?? [])), status: signedIn ? .forbidden : .unauthorized)
                if !signedIn { response.headers.append(HTTPHeader(name: "WWW-Authenticate", value: "Bearer realm=\"tileserver\", error=\"sign_in\"")) }
                response.headers.append(HTTPHeader(name: "Cache-Control", value: "private, no-store"))
                return response
            case let .renamed(location):
                var response = HTTPResponse.text(error.description + "\n", status: .movedPermanently)
                response.headers.append(HTTPHeader(name: "Location", value: location))
                return response
            case let .staleVersion(location):
                // Temporary: the version moves again when the file does.
                var response = HTTPResponse.text(error.description + "\n", status: .temporaryRedirect)
                response.headers.append(HTTPHeader(name: "Location", value: location))
                response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-cache"))
                return response
            }
        case let error as PyramidError:
            switch error {
            case .levelOutOfRange, .tileOutOfRange: return .error(.notFound, error.description)
            case .invalidParameter: return .error(.badRequest, error.description)
            }
        case let error as RenderBudgetError:
            switch error {
            case let .busy(_, retryAfter):
                var response = HTTPResponse.error(.serviceUnavailable, error.description)
                response.headers.append(HTTPHeader(name: "Retry-After", value: String(retryAfter)))
                return response
            case .tooLarge: return .error(.badRequest, error.description)
            }
        case let error as TileServiceError:
            return .error(.notFound, error.description)
        case let error as ImageSourceError:
            var response = HTTPResponse.error(status(of: error), message(for: error))
            if case .unavailable = error {
                response.headers.append(HTTPHeader(name: "Retry-After", value: String(ImageSourceError.retryAfterSeconds)))
            }
            return response
        default:
            return .error(.internalServerError, "\(error)")
        }
    }
}
