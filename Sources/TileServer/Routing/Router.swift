/// What a handler gives back: a response now, or work for the render pool whose result is the response.
enum HandlerOutcome: Sendable {
    case response(HTTPResponse)
    case deferred(@Sendable () -> HTTPResponse)
}

/// One route: a path pattern (`:name` captures a segment) and its handler. Routes are data, tried in order.
struct Route: Sendable {
    let name: String
    let pattern: [String]
    let handler: @Sendable (RequestContext) throws -> HandlerOutcome

    /// The captured segments if `segments` match, else nil.
    func match(_ segments: [String]) -> [String: String]? {
        guard segments.count == pattern.count else { return nil }
        var captures: [String: String] = [:]
        for (part, segment) in zip(pattern, segments) {
            if part.hasPrefix(":") {
                guard !segment.isEmpty else { return nil }
                captures[String(part.dropFirst())] = segment
            } else if part != segment {
                return nil
            }
        }
        return captures
    }
}

/// Picks the first matching route; anything else goes to the fallback (static files).
struct Router: Sendable {
    let routes: [Route]
    let fallback: Route

    func route(_ segments: [String]) -> (Route, [String: String]) {
        for route in routes {
            if let captures = route.match(segments) { return (route, captures) }
        }
        return (fallback, [:])
    }

    /// The responder at the centre of the chain: decode the path, pick the route, run its handler; a thrown
    /// error becomes its status here, through `APIError.response`.
    func respond(to request: HTTPRequest, notes: RequestNotes, app: Application) -> HandlerOutcome {
        do {
            let path = try RequestPath(request)
            let (route, captures) = route(path.segments)
            notes.route = route.name
            return try route.handler(RequestContext(request: request, path: path, captures: captures, app: app, notes: notes))
        } catch {
            return .response(APIError.response(for: error))
        }
    }
}
