import CEpoll
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// One client's HTTP/1.1 conversation, owned by one event loop thread: bytes received and not yet parsed,
/// answers in request order (a pipelined request waits while the one before it is with a pool), keep-alive,
/// HEAD, the header and idle timeouts, and the lingering close. The loop tells it when its socket is readable
/// or writable; it tells the loop what to watch for (as epoll's event bits: input, output, peer hang-up) and when
/// it is done. Registering, waiting and dispatching are the loop's.
final class HTTP1Connection {
    let id: UInt64
    let fd: CInt
    /// The client's address (`Socket.address`), handed to each request.
    let peer: String
    /// Refused for the connection cap: answered 503, never counted among open connections.
    let refused: Bool
    private unowned let loop: EventLoop
    /// Received bytes; `consumed` of them are already parsed.
    private var input: [UInt8] = []
    private var consumed = 0
    private var output = OutputQueue()
    /// A request is with a pool; later pipelined requests wait so answers stay in order.
    private(set) var busy = false
    private var closeAfterFlush = false
    private var wantsWrite = false
    /// When the current request's first byte arrived (or the connection opened), while its head is incomplete.
    private var headerStarted: Double?
    private var lastActivity: Double
    /// Set once the last response is written and the write side shut: read and discard until EOF or then.
    private var lingerDeadline: Double?
    /// Set by the loop when it closed the socket; nothing more is done after that.
    var isClosed = false

    init(id: UInt64, fd: CInt, peer: String, now: Double, refused: Bool, loop: EventLoop) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.refused = refused
        self.loop = loop
        lastActivity = now
        headerStarted = now
        input.reserveCapacity(4096)
    }

    private var hasUnparsedInput: Bool { consumed < input.count }

    /// What epoll should report: input unless the connection is closing, output while answers are waiting.
    private var interest: UInt32 {
        (closeAfterFlush ? 0 : EPOLLIN.rawValue | EPOLLRDHUP.rawValue) | (wantsWrite ? EPOLLOUT.rawValue : 0)
    }

    // MARK: Events from the loop

    func readable(_ now: Double) {
        if lingerDeadline != nil { return discard() }
        var closed = false
        let limit = loop.parser.maxRequestLine + loop.parser.maxHeaderBytes + loop.parser.maxBody + 65536
        while true {
            let n: Int
            do {
                guard let count = try loop.read(fd, { bytes in
                    guard !closeAfterFlush else { return } // draining a closing connection: discard
                    if !hasUnparsedInput && headerStarted == nil { headerStarted = now }
                    input.append(contentsOf: bytes)
                }) else { break }
                n = count
            } catch {
                closed = true
                break
            }
            guard n > 0 else {
                closed = true
                break
            }
            if closeAfterFlush { continue }
            lastActivity = now
            if n < loop.readSize || input.count - consumed > limit { break }
        }
        process(now)
        if closed && !isClosed {
            // The peer finished sending: answer what is complete, then close once written.
            if busy || !output.isEmpty {
                closeAfterFlush = true
                loop.watch(self, events: wantsWrite ? EPOLLOUT.rawValue : 0)
            } else {
                loop.close(self)
            }
        }
    }

    func writable() {
        guard output.flush(to: fd) else { return loop.close(self) }
        afterFlush()
        if !isClosed && !busy { process(MonotonicClock.seconds()) }
    }

    /// The answer to the request that was with a pool; then the requests pipelined behind it.
    func complete(_ request: HTTPRequest, _ response: HTTPResponse) {
        busy = false
        send(response, for: request)
        if !isClosed { process(MonotonicClock.seconds()) }
    }

    /// Timeouts: a lingering close that ran out, an incomplete head (408), an idle keep-alive connection, and
    /// idle connections while the server drains.
    func sweep(_ now: Double, draining: Bool) {
        guard !busy && output.isEmpty else { return }
        if let deadline = lingerDeadline {
            if now > deadline { loop.close(self) }
        } else if let started = headerStarted, now - started > loop.options.headerTimeout {
            fail(.headerTimeout(loop.options.headerTimeout), started: now)
        } else if headerStarted == nil && (draining || now - lastActivity > loop.options.idleTimeout) {
            loop.close(self)
        } else if draining && !hasUnparsedInput {
            loop.close(self)
        }
    }

    /// Answers a failure the transport found itself, then closes.
    func fail(_ failure: TransportFailure, started: Double) {
        var response = loop.responder.respond(to: failure, started: started)
        response.close = true
        send(response, for: HTTPRequest(method: "-", target: "-", versionMinor: 1, headers: [], keepAlive: false))
    }

    // MARK: Requests and answers

    /// What one look at the unparsed input found.
    private enum Step {
        case incomplete
        case failure(HTTPStatus, String)
        /// A whole request of `consumed` bytes: to answer, or nil when the fast path answered it already.
        case request(HTTPRequest?, consumed: Int)
    }

    /// Parses and answers requests in order until one must wait (a pool, a full socket) or input runs out. A
    /// request the loop's `FastResponder` answers never becomes an `HTTPRequest`.
    private func process(_ now: Double) {
        while !isClosed && !busy && !closeAfterFlush && output.bytes < 1 << 20 && hasUnparsedInput {
            let step = input.withUnsafeBytes { raw -> Step in
                let bytes = UnsafeRawBufferPointer(rebasing: raw[consumed...])
                switch loop.parser.scan(bytes) {
                case .incomplete:
                    return .incomplete
                case let .failure(status, message):
                    return .failure(status, message)
                case let .head(head):
                    if let fast = loop.fastResponder {
                        let view = RequestView(bytes: bytes, head: head)
                        let keepAlive = head.keepAlive && !loop.draining
                        let isHead = view.isHead
                        if fast.answer(view, started: now, send: { sendFast($0, keepAlive: keepAlive, isHead: isHead) }) {
                            return .request(nil, consumed: head.length)
                        }
                    }
                    var request = HTTPRequest(head, in: bytes)
                    request.peer = peer
                    return .request(request, consumed: head.length)
                }
            }
            switch step {
            case .incomplete:
                compact()
                return
            case let .failure(status, message):
                fail(.malformed(status, message), started: now)
                return
            case let .request(request, used):
                consumed += used
                headerStarted = hasUnparsedInput ? now : nil
                if let request { handle(request, now) }
            }
        }
        compact()
    }

    /// Writes a fast answer at once with one `writev` (framing lines, the responder's fields, the body); what the
    /// socket does not take, or anything behind earlier answers still queued, is copied into the output queue.
    private func sendFast(_ response: FastResponse, keepAlive: Bool, isHead: Bool) {
        if !keepAlive { closeAfterFlush = true }
        let start = loop.framing.start(response.notModified ? .notModified : .ok, length: response.body.count)
        let sendsBody = !isHead && !response.notModified
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 5) { vectors in
            var total = 0
            func set(_ k: Int, _ part: UnsafeRawBufferPointer) {
                vectors[k] = iovec(iov_base: UnsafeMutableRawPointer(mutating: part.baseAddress), iov_len: part.count)
                total += part.count
            }
            set(0, start)
            set(1, response.fields)
            set(2, response.moreFields)
            set(3, ResponseFraming.end(keepAlive: keepAlive))
            set(4, sendsBody ? response.body : UnsafeRawBufferPointer(start: nil, count: 0))
            var sent = 0
            if output.isEmpty {
                do { sent = try Posix.writev(fd, UnsafeBufferPointer(vectors)) ?? 0 } catch { return loop.close(self) }
            }
            if sent < total {
                for k in 0 ..< 5 {
                    let part = UnsafeRawBufferPointer(start: vectors[k].iov_base, count: vectors[k].iov_len)
                    if sent >= part.count {
                        sent -= part.count
                        continue
                    }
                    output.append(Array(part[sent...]))
                    sent = 0
                }
            }
        }
        if !isClosed { afterFlush() }
    }

    private func handle(_ request: HTTPRequest, _ now: Double) {
        switch loop.responder.respond(to: request, started: now) {
        case let .response(response):
            send(response, for: request)
        case let .deferred(lane, work):
            busy = true
            loop.submit(work, on: lane, answering: request, for: self)
        }
    }

    /// Queues the response (head and body written together with one `writev`) and writes what the socket takes.
    private func send(_ response: HTTPResponse, for request: HTTPRequest) {
        let keepAlive = request.keepAlive && !response.close && !loop.draining
        output.append(loop.framing.head(of: response, keepAlive: keepAlive))
        if ResponseFraming.sendsBody(response, for: request) {
            output.append(response.body)
            if let file = response.file { output.append(file) }
        }
        if !keepAlive { closeAfterFlush = true }
        guard output.flush(to: fd) else { return loop.close(self) }
        afterFlush()
    }

    /// Closes a finished closing connection, or asks to be told when the socket can take more.
    private func afterFlush() {
        if output.isEmpty {
            if closeAfterFlush && !busy { return linger() }
            if wantsWrite {
                wantsWrite = false
                loop.watch(self, events: interest)
            }
        } else if !wantsWrite {
            wantsWrite = true
            loop.watch(self, events: interest)
        }
    }

    /// Lingering close: shut the write side after the last response, then wait (up to 2 s) for the client's
    /// EOF, so unread request bytes do not make the kernel reset the connection before the client reads the
    /// answer.
    private func linger() {
        Posix.shutdown(fd, Int32(SHUT_WR))
        lingerDeadline = MonotonicClock.seconds() + 2
        wantsWrite = false
        loop.watch(self, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        discard()
    }

    /// Reads and drops what a closing client still sends; closes at its EOF.
    private func discard() {
        while !isClosed {
            do {
                guard let n = try loop.read(fd, { _ in }) else { return } // nothing more for now
                if n == 0 { return loop.close(self) }
            } catch {
                return loop.close(self)
            }
        }
    }

    /// Drops parsed bytes once they are most of the buffer.
    private func compact() {
        if consumed == input.count {
            input.removeAll(keepingCapacity: true)
            consumed = 0
        } else if consumed > 65536 && consumed * 2 > input.count {
            input.removeFirst(consumed)
            consumed = 0
        }
    }
}
