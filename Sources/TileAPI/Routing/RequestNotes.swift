/// What the responder chain learns about one request on its way through, for metrics and the access log:
/// which route took it and whether a stored tile answered (`hit`: from memory or disk; `miss`: rendered).
/// Written by the router and handlers (on the event loop or a pool) before the response is observed, read once
/// after.
final class RequestNotes: @unchecked Sendable {
    enum Cache: String, Sendable {
        case hit, miss, none = "-"
    }

    /// When the request head was complete (monotonic seconds).
    let started: Double
    var route: String
    var cache = Cache.none
    /// Who asked, as the access log names them: the user, `share:{id}`, or `-`.
    var user = "-"

    init(started: Double, route: String = "invalid") {
        self.started = started
        self.route = route
    }
}
