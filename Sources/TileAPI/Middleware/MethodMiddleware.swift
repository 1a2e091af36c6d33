import HTTPTransport

/// GET and HEAD go on to the routes; OPTIONS is a CORS preflight answered here; anything else is 405.
struct MethodMiddleware: Middleware {
    static let allowed = "GET, HEAD, OPTIONS"
    /// The only paths that take a POST: the sign-in and sign-out forms.
    static let posts: Set<Substring> = ["/auth/login", "/auth/logout"]

    func respond(to request: HTTPRequest, context notes: RequestNotes, next: Responder<RequestNotes>) -> HandlerOutcome {
        switch request.method {
        case "GET", "HEAD":
            return next(request, notes)
        case "POST" where Self.posts.contains(request.path):
            return next(request, notes)
        case "OPTIONS":
            notes.route = "options"
            return .response(HTTPResponse(status: .noContent, contentType: "text/plain", body: [], headers: [
                HTTPHeader(name: "Allow", value: Self.allowed),
                HTTPHeader(name: "Access-Control-Allow-Methods", value: Self.allowed),
                HTTPHeader(name: "Access-Control-Allow-Headers", value: request.header("access-control-request-headers") ?? "*"),
                HTTPHeader(name: "Access-Control-Max-Age", value: "86400"),
            ]))
        default:
            notes.route = "invalid"
            var response = HTTPResponse.error(.methodNotAllowed, "method \(request.method) is not allowed; use GET, HEAD or OPTIONS")
            response.headers.append(HTTPHeader(name: "Allow", value: Self.allowed))
            return .response(response)
        }
    }
}
