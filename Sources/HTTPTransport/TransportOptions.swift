import POSIXSupport

/// The transport's settings: where to listen, how many loops, and the limits and timeouts every connection is
/// held to. Defaults here; the executable declares the flags that change them.
package struct TransportOptions: Sendable {
    package var host = "0.0.0.0"
    /// 0 picks a free port (`HTTPServer.port` tells which).
    package var port = 8080
    package var eventLoops = min(2, System.coreCount)
    /// Open connections beyond which new ones get 503 and are closed.
    package var maxConnections = 10_000
    /// Seconds for a complete request head before 408.
    package var headerTimeout = 10.0
    /// Seconds an idle keep-alive connection stays open.
    package var idleTimeout = 60.0
    /// Seconds requests in flight may take to finish after SIGTERM.
    package var shutdownGrace = 10.0

    package init() {}
}
