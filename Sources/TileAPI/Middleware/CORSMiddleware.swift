import HTTPTransport

/// Every response may be read by any origin: tiles and JSON are public, and viewers on other sites use them.
struct CORSMiddleware: Middleware {
    static let header = HTTPHeader(name: "Access-Control-Allow-Origin", value: "*")

    func respond(to request: HTTPRequest, context notes: RequestNotes, next: Responder<RequestNotes>) -> HandlerOutcome {
        next(request, notes).map { response in
            var response = response
            response.headers.insert(Self.header, at: 0)
            return response
        }
    }
}
