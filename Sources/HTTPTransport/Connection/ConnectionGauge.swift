import Synchronization

/// Open connections across every event loop: what the connection cap is checked against and what `/metrics`
/// shows. Made by whoever builds the server, so the application can read it without knowing the server.
public final class ConnectionGauge: Sendable {
    let count = Atomic<Int>(0)

    public init() {}

    public var open: Int { count.load(ordering: .relaxed) }
}
