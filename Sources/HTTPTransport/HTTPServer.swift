import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// The listening socket and its event loops, with graceful shutdown on SIGTERM and SIGINT.
package final class HTTPServer: Sendable {
    package let port: Int
    private let listener: CInt
    private let options: TransportOptions
    private let loops: [EventLoop]

    /// Listens on `options.host:port` and prepares `options.eventLoops` loops that answer with `responder`,
    /// running deferred work on `pools` and counting connections in `gauge`.
    package init(options: TransportOptions, responder: any HTTPResponder, pools: WorkerPools, gauge: ConnectionGauge) throws {
        let fd = try Socket.listen(host: options.host, port: options.port)
        listener = fd
        port = Socket.localPort(fd)
        self.options = options
        loops = try (0 ..< options.eventLoops).map {
            try EventLoop(responder: responder, options: options, pools: pools, gauge: gauge, listener: fd, index: $0)
        }
        for loop in loops { loop.peers = loops }
    }

    /// How many connections each event loop holds now (for diagnostics and tests).
    package var connectionsPerLoop: [Int] { loops.map { $0.liveConnections.load(ordering: .relaxed) } }

    /// Blocks SIGINT, SIGTERM and SIGPIPE in every thread (a broken connection must never kill the process;
    /// the shutdown signals are taken by `sigwait`). Call before any other thread starts.
    package static func prepareSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    package func start() {
        for loop in loops { loop.start() }
    }

    /// Waits for SIGINT or SIGTERM, tells `received` which, then drains: no new connections, requests in flight
    /// finish (up to the grace period), and returns.
    package func waitForShutdown(received: (Int32) -> Void = { _ in }) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        var signal: Int32 = 0
        sigwait(&set, &signal)
        received(signal)
        for loop in loops { loop.drain() }
        let deadline = MonotonicClock.seconds() + options.shutdownGrace
        while MonotonicClock.seconds() < deadline && loops.contains(where: { $0.liveConnections.load(ordering: .relaxed) > 0 }) {
            usleep(20_000)
        }
        Posix.close(listener)
    }
}
