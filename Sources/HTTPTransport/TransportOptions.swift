import POSIXSupport

/// The transport's settings: where to listen, how many loops, and the limits and timeouts every connection is
/// held to. Defaults here; the executable declares the flags that change them.
public struct TransportOptions: Sendable {
    public var host = "0.0.0.0"
    /// 0 picks a free port (`HTTPServer.port` tells which).
    public var port = 8080
    public var eventLoops = min(2, System.coreCount)
    /// Open connections beyond which new ones get 503 and are closed.
    public var maxConnections = 10_000
    /// Seconds for a complete request head before 408.
    public var headerTimeout = 10.0
    /// Seconds an idle keep-alive connection stays open.
    public var idleTimeout = 60.0
    /// Seconds requests in flight may take to finish after SIGTERM.
    public var shutdownGrace = 10.0

    public init() {}
}
