import POSIXSupport

extension ImageSourceError {
    /// The `Retry-After` of an answer the outage of object storage prevented: a few retries' worth.
    package static let retryAfterSeconds = 5

    /// An outage rather than an answer about the file: not remembered as the file's failure, since asking again
    /// later may succeed.
    package var isTransient: Bool {
        switch self {
        case .unavailable, .changed: true
        default: false
        }
    }
}
