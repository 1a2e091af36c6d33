import Logging

/// One line per request: method, target, status, body bytes, microseconds, and whether the tile cache answered.
final class AccessLog: Sendable {
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func record(_ request: HTTPRequest, _ response: HTTPResponse, seconds: Double, cache: RequestNotes.Cache) {
        logger.info("\(request.method) \(request.target) \(response.status.code) \(response.body.count) \(Int(seconds * 1_000_000))us \(cache.rawValue)")
    }
}
