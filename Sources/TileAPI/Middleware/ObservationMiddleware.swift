import HTTPTransport
import POSIXSupport

/// Counts every response in the metrics and writes its access-log line, once it is known (for deferred work,
/// when the render pool finishes it).
struct ObservationMiddleware: Middleware {
    let metrics: Metrics
    let accessLog: AccessLog?

    func respond(to request: HTTPRequest, context notes: RequestNotes, next: Responder<RequestNotes>) -> HandlerOutcome {
        let metrics = metrics, accessLog = accessLog
        return next(request, notes).map { response in
            let seconds = MonotonicClock.seconds() - notes.started
            metrics.request(route: notes.route, status: response.status.code, seconds: seconds)
            accessLog?.record(request, response, seconds: seconds, cache: notes.cache, user: notes.user)
            return response
        }
    }
}
