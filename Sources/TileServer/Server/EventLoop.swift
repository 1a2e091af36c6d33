import CEpoll
import Logging
import POSIXSupport
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
    private let completions = Locked<[Completion]>([])
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
                Posix.close(fd)
                if !connection.refused { app.metrics.openConnections.subtract(1, ordering: .relaxed) }
                continue
            }
            connections[fd] = connection
            connectionsByID[connection.id] = connection
            liveConnections.add(1, ordering: .relaxed)
            if connection.refused {
                let refusal = HTTPResponse.error(.serviceUnavailable, "too many connections (limit \(app.config.maxConnections)); try again later")
                sendTransportError(refusal, on: connection, route: "refused", started: now)
            }
        }
    }

    private func readable(_ connection: Connection, _ now: Double) {
        if connection.lingerDeadline != nil { return discard(connection) }
        var closed = false
        while true {
            let n: Int
            do {
                guard let count = try readBuffer.withUnsafeMutableBytes({ buffer throws(SyscallError) in try Posix.read(connection.fd, into: buffer) }) else { break }
                n = count
            } catch {
                closed = true
                break
            }
            if n > 0 {
                if connection.closeAfterFlush { continue } // draining a closing connection: discard
                if !connection.hasUnparsedInput && connection.headerStarted == nil { connection.headerStarted = now }
                readBuffer.withUnsafeBufferPointer { connection.input.append(contentsOf: $0[0 ..< n]) }
                connection.lastActivity = now
                if n < readBuffer.count { break }
                if connection.input.count - connection.consumed > parser.maxRequestLine + parser.maxHeaderBytes + parser.maxBody + 65536 { break }
            } else {
                closed = true
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
            do {
                guard let n = try readBuffer.withUnsafeMutableBytes({ buffer throws(SyscallError) in try Posix.read(connection.fd, into: buffer) }) else {
                    return // nothing more for now
                }
                if n == 0 { return close(connection) }
            } catch {
                return close(connection)
            }
        }
    }

    /// Lingering close: shut the write side after the last response, then wait (up to 2 s) for the client's
    /// EOF, so unread request bytes do not make the kernel reset the connection before the client reads the
    /// answer.
    private func linger(_ connection: Connection) {
        Posix.shutdown(connection.fd, Int32(SHUT_WR))
        connection.lingerDeadline = MonotonicClock.seconds() + 2
        connection.wantsWrite = false
        try? epoll.modify(connection.fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        discard(connection)
    }

    private func writable(_ connection: Connection) {
        guard connection.flush() else { return close(connection) }
        afterFlush(connection)
        if connections[connection.fd] != nil && !connection.busy { process(connection, MonotonicClock.seconds()) }
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
                sendTransportError(.error(status, message), on: connection, route: "invalid", started: now)
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
        switch app.respond(to: request, notes: RequestNotes(started: now)) {
        case let .response(response):
            send(response, for: request, on: connection)
        case let .deferred(work):
            connection.busy = true
            let id = connection.id
            app.workers.submit { [self] in
                let response = work()
                completions.withLock { $0.append(Completion(connection: id, request: request, response: response)) }
                wake.signal()
            }
        }
    }

    /// An answer the transport makes itself (malformed request, header timeout, connection cap): observed by
    /// the chain like any response, then the connection closes.
    private func sendTransportError(_ response: HTTPResponse, on connection: Connection, route: String, started: Double) {
        let request = HTTPRequest(method: "-", target: "-", versionMinor: 1, headers: [], keepAlive: false)
        var response = app.respond(transport: response, to: request, notes: RequestNotes(started: started, route: route))
        response.close = true
        send(response, for: request, on: connection)
    }

    private func deliverCompletions() {
        let done = completions.withLock { list -> [Completion] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        for completion in done {
            guard let connection = connectionsByID[completion.connection] else { continue }
            connection.busy = false
            send(completion.response, for: completion.request, on: connection)
            if connections[connection.fd] != nil { process(connection, MonotonicClock.seconds()) }
        }
    }

    /// Queues the response (head and body written together with one writev).
    private func send(_ response: HTTPResponse, for request: HTTPRequest, on connection: Connection) {
        let keepAlive = request.keepAlive && !response.close && !stopAccepting.load(ordering: .relaxed)
        connection.enqueue(response.serializedHead(keepAlive: keepAlive, date: HTTPDate.now()))
        if !request.isHead && response.status != .notModified {
            connection.enqueue(response.body)
            if let file = response.file { connection.enqueue(file) }
        }
        if !keepAlive { connection.closeAfterFlush = true }
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
                let response = HTTPResponse.error(.requestTimeout, "no complete request head within \(JSONValue.format(app.config.headerTimeout)) s")
                sendTransportError(response, on: connection, route: "invalid", started: now)
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
        Posix.close(connection.fd)
        if !connection.refused { app.metrics.openConnections.subtract(1, ordering: .relaxed) }
        liveConnections.subtract(1, ordering: .relaxed)
    }
}
