import POSIXSupport

/// Whether object storage answers: the last outage and whether a request has succeeded since. `/healthz` reports
/// the store degraded while its last request met an outage (after the retries). Also what was asked of it, for
/// `/metrics`: requests sent by method (retries included) and bytes received.
package final class StorageHealth: Sendable {
    private struct State {
        var degraded = false
        var reason = ""
        var failures = 0
        var requests: [String: Int] = [:]
        var bytesReceived = 0
        /// When the last request failed after its retries (monotonic seconds).
        var failedAt = -Double.infinity
    }

    /// After an outage, requests for this long fail at once instead of each waiting out its own retries (a store
    /// that stalls would otherwise hold every worker in turn); the first one after it tries the store again.
    package static let quietSeconds = 3.0

    private let state = Locked(State())

    package init() {}

    func sent(_ method: String, received: Int) {
        state.withLock {
            $0.requests[method, default: 0] += 1
            $0.bytesReceived += received
        }
    }

    /// Requests sent, by method, and body bytes received, since the start.
    package var traffic: (requests: [String: Int], bytesReceived: Int) {
        state.withLock { ($0.requests, $0.bytesReceived) }
    }

    func succeeded() {
        state.withLock { $0.degraded = false }
    }

    func failed(_ reason: String) {
        state.withLock {
            $0.degraded = true
            $0.reason = reason
            $0.failures += 1
            $0.failedAt = MonotonicClock.seconds()
        }
    }

    /// Why a request now should not be sent: the store failed less than `quietSeconds` ago. Nil otherwise.
    func quietReason() -> String? {
        state.withLock { s in
            s.degraded && MonotonicClock.seconds() - s.failedAt < Self.quietSeconds ? s.reason : nil
        }
    }

    /// Whether requests now fail at once: the store failed less than `quietSeconds` ago.
    package var isQuiet: Bool { quietReason() != nil }

    /// Nil while the store answers; else why its last request failed.
    package var degradedReason: String? {
        state.withLock { $0.degraded ? $0.reason : nil }
    }

    /// Requests that failed after every retry, since the start.
    package var failures: Int { state.withLock { $0.failures } }
}
