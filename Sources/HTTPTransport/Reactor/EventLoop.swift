import CEpoll
import POSIXSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The reactor: one epoll instance on its own thread. It accepts from the shared listener and keeps each new
/// connection or hands it to the loop holding the fewest (the kernel wakes the same loop for every accept, so
/// connections would all land on it), tells each connection when its socket is readable or writable, hands
/// deferred work to the pools and brings their answers back (an eventfd wakes it), and sweeps timeouts four times
/// a second. It knows nothing of HTTP beyond handing bytes to `HTTP1Connection`. Sockets are level-triggered and
/// non-blocking; a connection is touched only by its loop.
final class EventLoop: @unchecked Sendable {
    private struct Completion {
        let connection: UInt64
        let request: HTTPRequest
        let response: HTTPResponse
    }

    let responder: any HTTPResponder
    let options: TransportOptions
    let parser = HTTPParser()
    /// The responder's answers from bytes (a cached tile), used only on this loop's thread.
    let fastResponder: (any FastResponder)?
    /// How this loop's answers go on the wire.
    let framing = ResponseFraming()
    private let pools: WorkerPools
    private let gauge: ConnectionGauge
    private let listener: CInt
    private let epoll: Epoll
    private let wake: WakeSignal
    private var connections: [CInt: HTTP1Connection] = [:]
    private var connectionsByID: [UInt64: HTTP1Connection] = [:]
    private var nextID: UInt64
    private let completions = Locked<[Completion]>([])
    private let stopAccepting = Atomic<Bool>(false)
    private var listening = true
    private var lastSweep = 0.0
    /// One receive buffer for the whole loop: reads copy out of it at once.
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    /// The connections a sweep visits, in a buffer kept between sweeps.
    private var sweeping: [HTTP1Connection] = []
    /// Live connections of this loop (and those handed to it, not yet taken in): for shutdown and for
    /// choosing the loop a new connection goes to.
    let liveConnections = Atomic<Int>(0)
    /// Every loop of the server, this one included; set before any starts.
    var peers: [EventLoop] = []
    /// Sockets another loop accepted for this one, and how many are waiting.
    private let arrivals = Locked<[(fd: CInt, peer: String)]>([])
    private let arriving = Atomic<Int>(0)

    init(responder: any HTTPResponder, options: TransportOptions, pools: WorkerPools, gauge: ConnectionGauge,
         listener: CInt, index: Int) throws {
        self.responder = responder
        fastResponder = responder.makeFastResponder()
        self.options = options
        self.pools = pools
        self.gauge = gauge
        self.listener = listener
        epoll = try Epoll()
        wake = try WakeSignal()
        nextID = UInt64(index) << 48
        try epoll.add(listener, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue)
        try epoll.add(wake.fd, events: EPOLLIN.rawValue)
    }

    func start() {
        startDetachedThread { [self] in run() }
    }

    /// Stop taking new connections; idle ones are closed, requests in flight finish with `Connection: close`.
    func drain() {
        stopAccepting.store(true, ordering: .releasing)
        wake.signal()
    }

    var draining: Bool { stopAccepting.load(ordering: .relaxed) }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let n = epoll.wait(&events, timeout: 250)
            let now = MonotonicClock.seconds()
            for i in 0 ..< n {
                let fd = events[i].data.fd
                let flags = events[i].events
                if fd == listener {
                    acceptAll(now)
                } else if fd == wake.fd {
                    wake.drain()
                } else if let connection = connections[fd] {
                    if flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 && flags & EPOLLIN.rawValue == 0 {
                        close(connection)
                        continue
                    }
                    if flags & EPOLLIN.rawValue != 0 { connection.readable(now) }
                    if flags & EPOLLOUT.rawValue != 0, !connection.isClosed { connection.writable() }
                }
            }
            deliverCompletions()
            if arriving.load(ordering: .acquiring) > 0 { adoptArrivals(now) }
            if draining && listening {
                epoll.remove(listener)
                listening = false
            }
            if now - lastSweep >= 0.25 {
                lastSweep = now
                sweeping.append(contentsOf: connections.values) // a copy: a sweep may close (and remove) connections
                for connection in sweeping { connection.sweep(now, draining: draining) }
                sweeping.removeAll(keepingCapacity: true)
            }
        }
    }

    private func acceptAll(_ now: Double) {
        while listening {
            let accepted: (fd: CInt, peer: String)?
            do { accepted = try Socket.accept(listener) } catch {
                responder.report("accept failed: \(error)")
                return
            }
            guard let accepted else { return }
            let open = gauge.count.add(1, ordering: .relaxed).newValue
            let refused = open > options.maxConnections
            if refused { gauge.count.subtract(1, ordering: .relaxed) }
            let target = refused ? self : peers.min { Self.load($0) < Self.load($1) } ?? self
            target.liveConnections.add(1, ordering: .relaxed)
            if target === self {
                register(accepted.fd, peer: accepted.peer, now: now, refused: refused)
            } else {
                target.arrivals.withLock { $0.append(accepted) }
                target.arriving.add(1, ordering: .releasing)
                target.wake.signal()
            }
        }
    }

    private static func load(_ loop: EventLoop) -> Int { loop.liveConnections.load(ordering: .relaxed) }

    /// Takes in the sockets other loops accepted for this one.
    private func adoptArrivals(_ now: Double) {
        let sockets = arrivals.withLock { list -> [(fd: CInt, peer: String)] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        arriving.subtract(sockets.count, ordering: .relaxed)
        for socket in sockets { register(socket.fd, peer: socket.peer, now: now, refused: false) }
    }

    /// Watches an accepted socket (counted in `liveConnections` already) as a new connection of this loop.
    private func register(_ fd: CInt, peer: String, now: Double, refused: Bool) {
        nextID += 1
        let connection = HTTP1Connection(id: nextID, fd: fd, peer: peer, now: now, refused: refused, loop: self)
        do { try epoll.add(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue) } catch {
            Posix.close(fd)
            if !refused { gauge.count.subtract(1, ordering: .relaxed) }
            liveConnections.subtract(1, ordering: .relaxed)
            return
        }
        connections[fd] = connection
        connectionsByID[connection.id] = connection
        if refused { connection.fail(.tooManyConnections(limit: options.maxConnections), started: now) }
    }

    // MARK: What connections ask of their loop

    /// Bytes one `read` may return.
    var readSize: Int { readBuffer.count }

    /// One `read` of `fd` into the loop's buffer; `received` sees the bytes. nil: nothing to read now; 0: EOF.
    func read(_ fd: CInt, _ received: (UnsafeRawBufferPointer) -> Void) throws -> Int? {
        try readBuffer.withUnsafeMutableBytes { buffer throws(SyscallError) -> Int? in
            guard let n = try Posix.read(fd, into: buffer) else { return nil }
            received(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            return n
        }
    }

    /// Which epoll events `connection` wants reported.
    func watch(_ connection: HTTP1Connection, events: UInt32) {
        try? epoll.modify(connection.fd, events: events)
    }

    /// Runs `work` on the pool of `lane`; its answer comes back to `connection` on this loop's thread.
    func submit(_ work: @escaping @Sendable () -> HandlerOutcome, on lane: WorkLane, answering request: HTTPRequest,
                for connection: HTTP1Connection) {
        submit(work, on: lane, request: request, connection: connection.id)
    }

    private func submit(_ work: @escaping @Sendable () -> HandlerOutcome, on lane: WorkLane, request: HTTPRequest, connection id: UInt64) {
        pools.pool(for: lane).submit { [self] in
            switch work() {
            case let .response(response):
                completions.withLock { $0.append(Completion(connection: id, request: request, response: response)) }
                wake.signal()
            case let .deferred(next, more):
                submit(more, on: next, request: request, connection: id)
            }
        }
    }

    private func deliverCompletions() {
        let done = completions.withLock { list -> [Completion] in
            guard !list.isEmpty else { return [] }
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        for completion in done {
            connectionsByID[completion.connection]?.complete(completion.request, completion.response)
        }
    }

    func close(_ connection: HTTP1Connection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        connection.isClosed = true
        connectionsByID[connection.id] = nil
        epoll.remove(connection.fd)
        Posix.close(connection.fd)
        if !connection.refused { gauge.count.subtract(1, ordering: .relaxed) }
        liveConnections.subtract(1, ordering: .relaxed)
    }
}
