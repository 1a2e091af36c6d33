import CEpoll
import Logging
import Pyramid
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One epoll event loop on its own thread: accepts from the shared listener, reads, parses, answers fast
/// requests in place, hands slow ones to the render pool and writes their answers when they come back.
/// Sockets are level-triggered and non-blocking; a connection is touched only by its loop.
final class EventLoop: @unchecked Sendable {
    private struct Completion {
        let connection: UInt64
        let request: HTTPRequest
        let route: String
        let started: Double
        let response: HTTPResponse
    }

    private let app: Application
    private let listener: CInt
    private let epoll: Epoll
    private let wake: WakeSignal
    private let parser = HTTPParser()
    private var connections: [CInt: Connection] = [:]
    private var connectionsByID: [UInt64: Connection] = [:]
    private var nextID: UInt64
    private let completions = Mutex<[Completion]>([])
    private let stopAccepting = Atomic<Bool>(false)
    private var listening = true
    private var lastSweep = 0.0
    /// One receive buffer for the whole loop: reads copy out of it at once.
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    /// Live connections of this loop, for shutdown.
    let liveConnections = Atomic<Int>(0)

    init(app: Application, listener: CInt, index: Int) throws {
        self.app = app
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

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let n = epoll.wait(&events, timeout: 250)
            let now = Clock.seconds()
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
                    if flags & EPOLLIN.rawValue != 0 { readable(connection, now) }
                    if flags & EPOLLOUT.rawValue != 0, connections[fd] != nil { writable(connection) }
                }
            }
            deliverCompletions()
            if stopAccepting.load(ordering: .acquiring) && listening {
                epoll.remove(listener)
                listening = false
            }
            if now - lastSweep >= 0.25 {
                lastSweep = now
                sweep(now)
            }
        }
    }

    private func acceptAll(_ now: Double) {
        while listening {
            let fd: CInt?
            do { fd = try Socket.accept(listener) } catch {
                app.logger.warning("accept failed: \(error)")
                return
            }
            guard let fd else { return }
            let open = app.metrics.openConnections.add(1, ordering: .relaxed).newValue
            nextID += 1
            let connection = Connection(id: nextID, fd: fd, now: now)
            if open > app.config.maxConnections {
                app.metrics.openConnections.subtract(1, ordering: .relaxed)
                connection.refused = true
            }
            do { try epoll.add(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue) } catch {
                Glibc.close(fd)
                if !connection.refused { app.metrics.openConnections.subtract(1, ordering: .relaxed) }
                continue
            }
            connections[fd] = connection
            connectionsByID[connection.id] = connection
            liveConnections.add(1, ordering: .relaxed)
            if connection.refused {
                var refusal = HTTPResponse.error(.serviceUnavailable, "too many connections (limit \(app.config.maxConnections)); try again later")
                refusal.close = true
                let request = HTTPRequest(method: "-", target: "-", versionMinor: 1, headers: [], keepAlive: false)
                send(refusal, for: request, on: connection, route: "refused", started: now)
            }
        }
    }

    private func readable(_ connection: Connection, _ now: Double) {
        if connection.lingerDeadline != nil { return discard(connection) }
        var closed = false
        while true {
            let n = readBuffer.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if connection.closeAfterFlush { continue } // draining a closing connection: discard
                if !connection.hasUnparsedInput && connection.headerStarted == nil { connection.headerStarted = now }
                readBuffer.withUnsafeBufferPointer { connection.input.append(contentsOf: $0[0 ..< n]) }
                connection.lastActivity = now
                if n < readBuffer.count { break }
                if connection.input.count - connection.consumed > parser.maxRequestLine + parser.maxHeaderBytes + parser.maxBody + 65536 { break }
            } else if n == 0 {
                closed = true
                break
            } else {
                if errno == EINTR { continue }
                if errno != EAGAIN { closed = true }
                break
            }
        }
        process(connection, now)
        if closed, connections[connection.fd] != nil {
            // The peer finished sending: answer what is complete, then close once written.
            if connection.busy || !connection.output.isEmpty {
                connection.closeAfterFlush = true
                try? epoll.modify(connection.fd, events: connection.wantsWrite ? EPOLLOUT.rawValue : 0)
            } else {
                close(connection)
            }
        }
    }

    /// Reads and drops what a closing client still sends; closes at its EOF.
    private func discard(_ connection: Connection) {
        while true {
            let n = readBuffer.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
            if n > 0 { continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN { return }
            return close(connection)
        }
    }

    /// Lingering close: shut the write side after the last response, then wait (up to 2 s) for the client's
    /// EOF, so unread request bytes do not make the kernel reset the connection before the client reads the
    /// answer.
    private func linger(_ connection: Connection) {
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.lingerDeadline = Clock.seconds() + 2
        connection.wantsWrite = false
        try? epoll.modify(connection.fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        discard(connection)
    }

    private func writable(_ connection: Connection) {
        guard connection.flush() else { return close(connection) }
        afterFlush(connection)
        if connections[connection.fd] != nil && !connection.busy { process(connection, Clock.seconds()) }
    }

    /// Parses and answers requests in order until one must wait (render pool, full socket) or input runs out.
    private func process(_ connection: Connection, _ now: Double) {
        while !connection.busy && !connection.closeAfterFlush && connection.outputBytes < 1 << 20 && connection.hasUnparsedInput {
            let result = connection.input.withUnsafeBytes { raw in
                parser.parse(UnsafeRawBufferPointer(rebasing: raw[connection.consumed...]))
            }
            switch result {
            case .incomplete:
                connection.compact()
                return
            case let .failure(status, message):
                var response = HTTPResponse.error(status, message)
                response.close = true
                let request = HTTPRequest(method: "-", target: "-", versionMinor: 1, headers: [], keepAlive: false)
                send(response, for: request, on: connection, route: "invalid", started: now)
                return
            case let .request(request, consumed):
                connection.consumed += consumed
                connection.headerStarted = connection.hasUnparsedInput ? now : nil
                handle(request, on: connection, now)
            }
        }
        connection.compact()
    }

    private func handle(_ request: HTTPRequest, on connection: Connection, _ now: Double) {
        let outcome: (String, HandlerOutcome)
        switch request.method {
        case "GET", "HEAD":
            outcome = route(request)
        case "OPTIONS":
            var response = HTTPResponse(status: .noContent, contentType: "", body: [], headers: [
                HTTPHeader(name: "Allow", value: "GET, HEAD, OPTIONS"),
                HTTPHeader(name: "Access-Control-Allow-Methods", value: "GET, HEAD, OPTIONS"),
                HTTPHeader(name: "Access-Control-Allow-Headers", value: request.header("access-control-request-headers") ?? "*"),
                HTTPHeader(name: "Access-Control-Max-Age", value: "86400"),
            ])
            response.contentType = "text/plain"
            outcome = ("options", .response(response))
        default:
            var response = HTTPResponse.error(.methodNotAllowed, "method \(request.method) is not allowed; use GET, HEAD or OPTIONS")
            response.headers.append(HTTPHeader(name: "Allow", value: "GET, HEAD, OPTIONS"))
            outcome = ("invalid", .response(response))
        }
        switch outcome.1 {
        case let .response(response):
            send(response, for: request, on: connection, route: outcome.0, started: now)
        case let .deferred(work):
            connection.busy = true
            let id = connection.id, route = outcome.0
            app.workers.submit { [self] in
                let response = work()
                completions.withLock { $0.append(Completion(connection: id, request: request, route: route, started: now, response: response)) }
                wake.signal()
            }
        }
    }

    private func route(_ request: HTTPRequest) -> (String, HandlerOutcome) {
        do {
            let path = try RequestPath(request)
            let (route, captures) = app.router.route(path.segments)
            do {
                return (route.name, try route.handler(RequestContext(request: request, path: path, captures: captures, app: app)))
            } catch {
                return (route.name, .response(APIError.response(for: error)))
            }
        } catch {
            return ("invalid", .response(APIError.response(for: error)))
        }
    }

    private func deliverCompletions() {
        let done = completions.withLock { list -> [Completion] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        for completion in done {
            guard let connection = connectionsByID[completion.connection] else { continue }
            connection.busy = false
            send(completion.response, for: completion.request, on: connection, route: completion.route, started: completion.started)
            if connections[connection.fd] != nil { process(connection, Clock.seconds()) }
        }
    }

    /// Queues the response (head and body written together with one writev) and logs it.
    private func send(_ response: HTTPResponse, for request: HTTPRequest, on connection: Connection, route: String, started: Double) {
        let keepAlive = request.keepAlive && !response.close && !stopAccepting.load(ordering: .relaxed)
        connection.enqueue(response.serializedHead(keepAlive: keepAlive, date: HTTPDate.now()))
        if !request.isHead && response.status != .notModified { connection.enqueue(response.body) }
        if !keepAlive { connection.closeAfterFlush = true }
        let seconds = Clock.seconds() - started
        app.metrics.request(route: route, status: response.status.code, seconds: seconds)
        if app.config.accessLog {
            app.logger.info("\(request.method) \(request.target) \(response.status.code) \(response.body.count) \(Int(seconds * 1_000_000))us \(response.cache)")
        }
        guard connection.flush() else { return close(connection) }
        afterFlush(connection)
    }

    /// Closes a finished closing connection, or asks epoll to tell when the socket can take more.
    private func afterFlush(_ connection: Connection) {
        if connection.output.isEmpty {
            if connection.closeAfterFlush && !connection.busy { return linger(connection) }
            if connection.wantsWrite {
                connection.wantsWrite = false
                try? epoll.modify(connection.fd, events: connection.closeAfterFlush ? 0 : EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
            }
        } else if !connection.wantsWrite {
            connection.wantsWrite = true
            try? epoll.modify(connection.fd, events: (connection.closeAfterFlush ? 0 : EPOLLIN.rawValue | EPOLLRDHUP.rawValue) | EPOLLOUT.rawValue)
        }
    }

    /// Header timeouts (408), idle keep-alive timeouts, and closing idle connections while draining.
    private func sweep(_ now: Double) {
        let draining = stopAccepting.load(ordering: .relaxed)
        for connection in Array(connections.values) where !connection.busy && connection.output.isEmpty {
            if let deadline = connection.lingerDeadline {
                if now > deadline { close(connection) }
                continue
            }
            if let started = connection.headerStarted, now - started > app.config.headerTimeout {
                var response = HTTPResponse.error(.requestTimeout, "no complete request head within \(JSONValue.format(app.config.headerTimeout)) s")
                response.close = true
                let request = HTTPRequest(method: "-", target: "-", versionMinor: 1, headers: [], keepAlive: false)
                send(response, for: request, on: connection, route: "invalid", started: now)
            } else if connection.headerStarted == nil && (draining || now - connection.lastActivity > app.config.idleTimeout) {
                close(connection)
            } else if draining && !connection.hasUnparsedInput {
                close(connection)
            }
        }
    }

    private func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        connectionsByID[connection.id] = nil
        epoll.remove(connection.fd)
        Glibc.close(connection.fd)
        if !connection.refused { app.metrics.openConnections.subtract(1, ordering: .relaxed) }
        liveConnections.subtract(1, ordering: .relaxed)
    }
}
