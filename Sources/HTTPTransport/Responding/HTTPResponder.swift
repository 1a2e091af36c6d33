/// What the server asks of the application: an answer to each parsed request, the answer to a failure the
/// transport found itself, and where to report trouble with sockets. The transport knows nothing else of it.
package protocol HTTPResponder: Sendable {
    /// Answers `request`, whose head was complete at `started` (monotonic seconds).
    func respond(to request: HTTPRequest, started: Double) -> HandlerOutcome
    /// The response to a failure the transport found (malformed request, header timeout, connection cap); the
    /// connection closes after it.
    func respond(to failure: TransportFailure, started: Double) -> HTTPResponse
    /// A socket call failed in a way no client sees (accept).
    func report(_ problem: String)
    /// A fast responder for one event loop (each loop asks once, at start), or nil for none.
    func makeFastResponder() -> (any FastResponder)?
}

extension HTTPResponder {
    package func makeFastResponder() -> (any FastResponder)? { nil }
}

/// A request the transport answers without the application's routes.
package enum TransportFailure: Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a request this server takes (the parser's status and reason).
    case malformed(HTTPStatus, String)
    /// No complete request head within the header timeout, in seconds.
    case headerTimeout(Double)
    /// The connection cap was reached.
    case tooManyConnections(limit: Int)

    package var status: HTTPStatus {
        switch self {
        case let .malformed(status, _): status
        case .headerTimeout: .requestTimeout
        case .tooManyConnections: .serviceUnavailable
        }
    }

    package var description: String {
        switch self {
        case let .malformed(_, message): message
        case let .headerTimeout(seconds):
            "no complete request head within \(seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)) s"
        case let .tooManyConnections(limit): "too many connections (limit \(limit)); try again later"
        }
    }
}
