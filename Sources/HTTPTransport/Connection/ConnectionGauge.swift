import Synchronization

/// Open connections across every event loop: what the connection cap is checked against and what `/metrics`
/// shows. Made by whoever builds the server, so the application can read it without knowing the server.
package final class ConnectionGauge: Sendable {
    let count = Atomic<Int>(0)

    package init() {}

    package var open: Int { count.load(ordering: .relaxed) }
}
