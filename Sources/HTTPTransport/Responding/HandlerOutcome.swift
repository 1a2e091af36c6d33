/// What a responder gives back: a response now, or work for a pool thread whose result is the response. The
/// event loop never runs deferred work itself: anything that decodes, encodes, reads a file or walks a list
/// of unbounded length is deferred, so a keep-alive connection's cached tiles never wait behind it.
package enum HandlerOutcome: Sendable {
    case response(HTTPResponse)
    /// Work for the pool of the lane; what it gives back may be deferred again (to another lane).
    case deferred(WorkLane, @Sendable () -> HandlerOutcome)

    /// Work on `lane` whose result is the response.
    package static func work(on lane: WorkLane, _ body: @escaping @Sendable () -> HTTPResponse) -> HandlerOutcome {
        .deferred(lane) { .response(body()) }
    }

    /// The same outcome with `transform` applied to its response, now or when the deferred work finishes.
    package func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HandlerOutcome {
        switch self {
        case let .response(response): .response(transform(response))
        case let .deferred(lane, work): .deferred(lane) { work().map(transform) }
        }
    }

    /// The response, running deferred work on the calling thread: for tests and tools that answer in process.
    package func wait() -> HTTPResponse {
        switch self {
        case let .response(response): response
        case let .deferred(_, work): work().wait()
        }
    }
}

/// Which pool runs deferred work: `render` for pixels (as many threads as cores), `io` for file and list work
/// that is mostly waiting (headers, listings, documents), so a listing never queues behind renders.
package enum WorkLane: Sendable {
    case render, io
}
