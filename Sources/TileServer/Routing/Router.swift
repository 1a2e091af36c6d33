/// What a handler gives back: a response now, or work for the render pool whose result is the response.
enum HandlerOutcome: Sendable {
    case response(HTTPResponse)
    case deferred(@Sendable () -> HTTPResponse)
}

/// One route: a path pattern and its handler. Routes are data, tried in order. In a pattern, `:name` captures
/// one segment; `*name` captures one segment that may also hold encoded slashes (an image id or folder path
/// like `2024%2Ficeland%2Fglacier`): the only place an encoded slash is accepted.
struct Route: Sendable {
    let name: String
    let pattern: [String]
    let handler: @Sendable (RequestContext) throws -> HandlerOutcome

    /// The captured segments if `segments` match, else nil; `slashed` marks segments that held an encoded `/`.
    func match(_ segments: [String], slashed: Set<Int> = []) -> [String: String]? {
        guard segments.count == pattern.count else { return nil }
        var captures: [String: String] = [:]
        for (index, (part, segment)) in zip(pattern, segments).enumerated() {
            if part.hasPrefix(":") || part.hasPrefix("*") {
                guard !segment.isEmpty, part.hasPrefix("*") || !slashed.contains(index) else { return nil }
                captures[String(part.dropFirst())] = segment
            } else if part != segment || slashed.contains(index) {
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

    func route(_ segments: [String], slashed: Set<Int> = []) throws(APIError) -> (Route, [String: String]) {
        for route in routes {
            if let captures = route.match(segments, slashed: slashed) { return (route, captures) }
        }
        guard slashed.isEmpty else { throw .badRequest("encoded slashes are allowed only inside an image id or folder path") }
        return (fallback, [:])
    }

    /// The responder at the centre of the chain: decode the path, pick the route, run its handler; a thrown
    /// error becomes its status here, through `APIError.response`.
    func respond(to request: HTTPRequest, notes: RequestNotes, app: Application) -> HandlerOutcome {
        do {
            let path = try RequestPath(request)
            let (route, captures) = try route(path.segments, slashed: path.slashed)
            notes.route = route.name
            return try route.handler(RequestContext(request: request, path: path, captures: captures, app: app, notes: notes))
        } catch {
            return .response(APIError.response(for: error))
        }
    }
}
