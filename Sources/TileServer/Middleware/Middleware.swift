/// What answers a request: the route table at the centre, or a fixed response the transport made.
typealias Responder = @Sendable (HTTPRequest, RequestNotes) -> HandlerOutcome

/// One step of the responder chain around the route table (hummingbird's middleware): it sees the request
/// before the routes and the response after them, deferred responses included.
protocol Middleware: Sendable {
    func respond(to request: HTTPRequest, notes: RequestNotes, next: Responder) -> HandlerOutcome
}

/// Middlewares in order, outermost first, around a responder.
struct ResponderChain: Sendable {
    let middlewares: [any Middleware]

    /// One responder that runs the middlewares around `responder`; composed once, called per request.
    func compose(around responder: @escaping Responder) -> Responder {
        middlewares.reversed().reduce(responder) { next, middleware in
            { request, notes in middleware.respond(to: request, notes: notes, next: next) }
        }
    }
}

extension HandlerOutcome {
    /// The same outcome with `transform` applied to its response, now or when the deferred work finishes.
    func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HandlerOutcome {
        switch self {
        case let .response(response): .response(transform(response))
        case let .deferred(work): .deferred { transform(work()) }
        }
    }
}
