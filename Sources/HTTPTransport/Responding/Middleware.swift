/// What answers a request: the route table at the centre of a chain, or a middleware around it. `Context` is
/// what the application carries along with each request (its notes for logs and metrics).
package typealias Responder<Context> = @Sendable (HTTPRequest, Context) -> HandlerOutcome

/// One step of a responder chain (hummingbird's middleware): it sees the request before the responder it
/// wraps and the response after it, deferred responses included.
package protocol Middleware<Context>: Sendable {
    associatedtype Context
    func respond(to request: HTTPRequest, context: Context, next: Responder<Context>) -> HandlerOutcome
}

/// Middlewares in order, outermost first, around a responder.
package struct ResponderChain<Context>: Sendable {
    package let middlewares: [any Middleware<Context>]

    package init(_ middlewares: [any Middleware<Context>]) {
        self.middlewares = middlewares
    }

    /// One responder that runs the middlewares around `responder`; composed once, called per request.
    package func compose(around responder: @escaping Responder<Context>) -> Responder<Context> {
        middlewares.reversed().reduce(responder) { next, middleware in
            { request, context in middleware.respond(to: request, context: context, next: next) }
        }
    }
}
