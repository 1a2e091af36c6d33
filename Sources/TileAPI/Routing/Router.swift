import HTTPTransport
import Library
import Pyramid

/// One route: a path pattern, its handler, and the pool its handler runs on (`nil`: on the event loop, for
/// handlers that touch no file, moving to the I/O pool by throwing `NeedsFile` when they would). In a pattern,
/// `:name` captures one segment; `*name` captures one segment that may also hold encoded slashes (an image id
/// or folder path like `2024%2Ficeland%2Fglacier`): the only place an encoded slash is accepted.
struct Route: Sendable {
    let name: String
    let pattern: [String]
    let lane: WorkLane?
    /// What the route names, for access control's decision before the handler.
    let access: RouteAccess
    let handler: @Sendable (RequestContext) throws -> HandlerOutcome

    /// `access` has no default: a route says what it names, and one that names an image gets it only admitted.
    init(name: String, pattern: [String], lane: WorkLane? = nil, access: RouteAccess,
         handler: @escaping @Sendable (RequestContext) throws -> HandlerOutcome) {
        self.name = name
        self.pattern = pattern
        self.lane = lane
        self.access = access
        self.handler = handler
    }

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
    /// Where image routes' images come from (`Admission`).
    let tiles: TileService
    /// The images served: an image route naming an id of the earlier naming rule is redirected (`renaming`).
    let library: ImageLibrary
    /// Access control, asked before every handler; nil: everything public, nothing asked.
    var control: AccessControl?
    /// `--public-url`, handed to every request's context.
    var publicURL: String?

    func route(_ segments: [String], slashed: Set<Int> = []) throws(APIError) -> (Route, [String: String]) {
        for route in routes {
            if let captures = route.match(segments, slashed: slashed) { return (route, captures) }
        }
        guard slashed.isEmpty else { throw .badRequest("encoded slashes are allowed only inside an image id or folder path") }
        return (fallback, [:])
    }

    /// The responder at the centre of the chain: decode the path, pick the route, run its handler where the
    /// route says; a thrown error becomes its status here, through `APIError.response`.
    func respond(to request: HTTPRequest, notes: RequestNotes) -> HandlerOutcome {
        do {
            let path = try RequestPath(request)
            let (route, captures) = try route(path.segments, slashed: path.slashed)
            notes.route = route.name
            let context = RequestContext(request: request, path: path, captures: captures, notes: notes, onLoop: route.lane == nil,
                                         publicURL: publicURL)
            let handler = renaming(route, gated(route, page: path.segments.isEmpty))
            if let lane = route.lane {
                return .deferred(lane) { Self.outcome { try handler(context) } }
            }
            do {
                return try handler(context)
            } catch is NeedsFile {
                let moved = context.offLoop
                return .deferred(.io) { Self.outcome { try handler(moved) } }
            }
        } catch {
            return .response(APIError.response(for: error))
        }
    }

    /// `route`'s handler behind access control's decision (`AccessControl.admit`) and its image's admission
    /// (`Admission`); answers that depend on who asks are made private to them. The top page (`page`) names
    /// images, so it is decided as a listing.
    private func gated(_ route: Route, page: Bool) -> @Sendable (RequestContext) throws -> HandlerOutcome {
        let access: RouteAccess = route.pattern.isEmpty && page ? .listing : route.access
        let (control, tiles, library) = (control, tiles, library)
        return { context in
            let decided = try control?.admit(context, access) ?? context
            let admitted = try Admission.admit(decided, access, tiles: tiles, library: library)
            let outcome = try route.handler(admitted)
            return admitted.access?.personal == true ? outcome.map(AccessControl.personal) : outcome
        }
    }

    /// `handler`, except that a request naming an image by the id an earlier version gave it (`ImageLibrary.renamedID`)
    /// gets 301 to the same request with today's id, query kept. Looked for only on a 404 for an id the library
    /// does not have, on a pool (the first look after a change walks the library); an image the identity may not
    /// know of gets the 404, so the redirect names nothing it would not.
    private func renaming(_ route: Route, _ handler: @escaping @Sendable (RequestContext) throws -> HandlerOutcome)
        -> @Sendable (RequestContext) throws -> HandlerOutcome {
        guard case let .image(capture, form) = route.access else { return handler }
        let (control, library) = (control, library)
        return { context in
            do {
                return try handler(context)
            } catch let error as APIError {
                guard case .notFound = error else { throw error }
                let captured = context.capture(capture), old = RouteAccess.id(captured, form)
                guard !library.hasImage(old) else { throw error }
                if context.onLoop { throw NeedsFile() }
                guard let new = library.renamedID(old) else { throw error }
                var captures = context.captures
                captures[capture] = new + captured.dropFirst(old.count)
                let moved = RequestContext(request: context.request, path: context.path, captures: captures, notes: context.notes, onLoop: false,
                                           publicURL: context.publicURL)
                if let control {
                    do { _ = try control.admit(moved, route.access) } catch let refusal as APIError {
                        if case .notFound = refusal { throw error }
                    }
                }
                let path = route.pattern.map { part in
                    part.hasPrefix(":") || part.hasPrefix("*") ? URLPath.escape(captures[String(part.dropFirst())] ?? "") : part
                }
                let query = context.request.query
                throw APIError.renamed(location: "/" + path.joined(separator: "/") + (query.isEmpty ? "" : "?" + query))
            }
        }
    }

    private static func outcome(_ body: () throws -> HandlerOutcome) -> HandlerOutcome {
        do { return try body() } catch { return .response(APIError.response(for: error)) }
    }
}
