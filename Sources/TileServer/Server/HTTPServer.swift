import CEpoll
import Logging
import POSIXSupport
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// The listening socket and its event loops, with graceful shutdown on SIGTERM and SIGINT.
final class HTTPServer: Sendable {
    let app: Application
    let listener: CInt
    let port: Int
    private let loops: [EventLoop]

    init(app: Application) throws {
        self.app = app
        let fd = try Socket.listen(host: app.config.host, port: app.config.port)
        listener = fd
        port = Socket.localPort(fd)
        loops = try (0 ..< app.config.eventLoops).map { try EventLoop(app: app, listener: fd, index: $0) }
    }

    /// Blocks SIGINT, SIGTERM and SIGPIPE in every thread (a broken connection must never kill the process;
    /// the shutdown signals are taken by `sigwait`), then starts the loops. Call before any other thread starts.
    static func prepareSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    func start() {
        for loop in loops { loop.start() }
    }

    /// Waits for SIGINT or SIGTERM, then drains: no new connections, requests in flight finish (up to the grace
    /// period), and returns.
    func waitForShutdown() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        var received: Int32 = 0
        sigwait(&set, &received)
        app.logger.notice("signal \(received): finishing requests in flight, then exiting")
        for loop in loops { loop.drain() }
        let deadline = MonotonicClock.seconds() + app.config.shutdownGrace
        while MonotonicClock.seconds() < deadline && loops.contains(where: { $0.liveConnections.load(ordering: .relaxed) > 0 }) {
            usleep(20_000)
        }
        Posix.close(listener)
        app.accessLog?.flush()
    }
}
