import HTTPTransport
import POSIXSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The transport on a real socket on 127.0.0.1 with a stub responder: no images, no routes. Order of answers,
/// HEAD, deferred work on both lanes (and from one lane to the other), failures the transport finds itself,
/// and that work held on a pool never holds the event loop.
final class ServerTests: XCTestCase {
    /// Answers `/fast` at once, `/held` on the I/O pool once the test opens `gate`, `/chain` on the render pool
    /// and then the I/O pool.
    private final class Stub: HTTPResponder, @unchecked Sendable {
        let gate = ConditionLock()
        var open = false
        var failures: [TransportFailure] = []

        func respond(to request: HTTPRequest, started: Double) -> HandlerOutcome {
            switch request.path {
            case "/held":
                return .work(on: .io) { [self] in
                    gate.withLock { while !open { gate.wait() } }
                    return .text("held\n")
                }
            case "/chain":
                return .deferred(.render) { .work(on: .io) { .text("chained\n") } }
            default:
                return .response(.text("fast\n"))
            }
        }

        func respond(to failure: TransportFailure, started: Double) -> HTTPResponse {
            gate.withLock { failures.append(failure) }
            return .text(failure.description + "\n", status: failure.status)
        }

        func report(_ problem: String) {}

        func makeFastResponder() -> (any FastResponder)? { Fast() }

        func release() {
            gate.withLock {
                open = true
                gate.broadcast()
            }
        }
    }

    /// Answers `/bytes` (a short body) and `/big` (3 MiB, more than a socket takes at once) from their bytes.
    private final class Fast: FastResponder {
        static let big = (0 ..< 3 << 20).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let fields = Array("Content-Type: text/plain\r\nX-Answered: fast\r\n".utf8)
        let more = Array("X-More: yes\r\n".utf8)
        let short = Array("from bytes\n".utf8)

        func answer(_ request: RequestView, started: Double, send: (FastResponse) -> Void) -> Bool {
            let target = String(decoding: request.target, as: UTF8.self)
            guard target == "/bytes" || target == "/big" else { return false }
            fields.withUnsafeBytes { fields in
                more.withUnsafeBytes { more in
                    (target == "/big" ? Self.big : short).withUnsafeBytes { body in
                        send(FastResponse(notModified: false, fields: fields, moreFields: more, body: body))
                    }
                }
            }
            return true
        }
    }

    private static let stub = Stub()
    private static let server: HTTPServer = {
        var options = TransportOptions()
        options.host = "127.0.0.1"
        options.port = 0
        options.eventLoops = 1 // one loop: anything that blocked it would block every connection
        options.headerTimeout = 0.5
        let server = try! HTTPServer(options: options, responder: stub, pools: WorkerPools(renderThreads: 1, ioThreads: 1, lowPriorityLimit: 4),
                                     gauge: ConnectionGauge())
        server.start()
        return server
    }()

    /// A blocking client socket with a 5 s receive timeout.
    private func connect(to port: Int = ServerTests.server.port) throws -> CInt {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(rc, 0, "connect")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private func send(_ fd: CInt, _ text: String) {
        var bytes = Array(text.utf8)
        XCTAssertEqual(write(fd, &bytes, bytes.count), bytes.count)
    }

    /// Reads until `count` responses (by their status lines and Content-Length) have arrived, or EOF, or timeout.
    private func receive(_ fd: CInt, responses count: Int) -> String {
        String(decoding: receiveBytes(fd, responses: count), as: UTF8.self)
    }

    private func receiveBytes(_ fd: CInt, responses count: Int) -> [UInt8] {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Self.complete(received) < count {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            received += buffer[0 ..< n]
        }
        return received
    }

    /// How many whole responses `bytes` holds, by Content-Length (a HEAD answer looks incomplete: read those to EOF).
    private static func complete(_ bytes: [UInt8]) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var count = 0, rest = Substring(text)
        while let end = rest.range(of: "\r\n\r\n") {
            let head = rest[..<end.lowerBound]
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            guard rest[end.upperBound...].utf8.count >= length else { break }
            rest = rest[rest.utf8.index(end.upperBound, offsetBy: length)...]
            count += 1
        }
        return count
    }

    /// A new connection goes to the loop holding the fewest, whichever loop accepted it (one tends to be woken for
    /// every accept): 30 connections over three loops are ten each, give or take one.
    func testConnectionsAreSpreadOverTheLoops() throws {
        var options = TransportOptions()
        options.host = "127.0.0.1"
        options.port = 0
        options.eventLoops = 3
        let server = try HTTPServer(options: options, responder: Self.stub, pools: WorkerPools(renderThreads: 1, ioThreads: 1, lowPriorityLimit: 4),
                                    gauge: ConnectionGauge())
        server.start()
        var fds: [CInt] = []
        defer { fds.forEach { _ = close($0) } }
        for _ in 0 ..< 30 {
            let fd = try connect(to: server.port)
            fds.append(fd)
            send(fd, "GET /bytes HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertTrue(receive(fd, responses: 1).hasPrefix("HTTP/1.1 200"), "every connection is answered")
        }
        let counts = server.connectionsPerLoop
        XCTAssertEqual(counts.reduce(0, +), 30, "\(counts)")
        XCTAssertLessThanOrEqual(counts.max()! - counts.min()!, 2, "\(counts)")
    }

    func testPipelinedAnswersKeepTheirOrderAcrossLanes() throws {
        let fd = try connect()
        defer { close(fd) }
        send(fd, "GET /chain HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\nGET /chain HTTP/1.1\r\nHost: t\r\n\r\n")
        let text = receive(fd, responses: 3)
        let bodies = text.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.prefix { $0 != "\n" } }
        XCTAssertEqual(bodies, ["chained", "fast", "chained"], text)
        XCTAssertEqual(text.components(separatedBy: "Connection: keep-alive").count - 1, 3)
    }

    /// Fast answers (from the request's bytes) go out in order with pipelined answers from pools and from the
    /// general path, framed as every answer is: status, Date, Server, Content-Length, their fields, Connection.
    func testFastAnswersKeepTheirPlaceAmongPipelinedOnes() throws {
        let fd = try connect()
        defer { close(fd) }
        send(fd, "GET /chain HTTP/1.1\r\nHost: t\r\n\r\nGET /bytes HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n"
            + "GET /bytes HTTP/1.1\r\nHost: t\r\n\r\n")
        let text = receive(fd, responses: 4)
        let bodies = text.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.prefix { $0 != "\n" } }
        XCTAssertEqual(bodies, ["chained", "from bytes", "fast", "from bytes"], text)
        let fast = try XCTUnwrap(text.components(separatedBy: "HTTP/1.1 200 OK\r\n").dropFirst().dropFirst().first)
        XCTAssertTrue(fast.hasPrefix("Date: ") && fast.contains(" GMT\r\nServer: tileserver\r\nContent-Length: 11\r\n"), fast)
        XCTAssertTrue(fast.contains("Content-Type: text/plain\r\nX-Answered: fast\r\nX-More: yes\r\nConnection: keep-alive\r\n\r\nfrom bytes\n"), fast)
    }

    /// A fast answer larger than the socket takes: what `writev` leaves is queued and written as the client
    /// reads, byte for byte, and the answer after it still follows.
    func testFastAnswerLargerThanTheSocketArrivesWhole() throws {
        let fd = try connect()
        defer { close(fd) }
        send(fd, "GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /bytes HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(200_000) // let the socket fill
        let received = receiveBytes(fd, responses: 2)
        let marker = Array("\r\n\r\n".utf8)
        let headEnd = try XCTUnwrap((0 ..< received.count - 3).first { Array(received[$0 ..< $0 + 4]) == marker }) + 4
        XCTAssertTrue(String(decoding: received[..<headEnd], as: UTF8.self).contains("Content-Length: \(Fast.big.count)\r\n"))
        XCTAssertTrue(Array(received[headEnd ..< headEnd + Fast.big.count]) == Fast.big, "the large body, byte for byte")
        XCTAssertTrue(String(decoding: received[(headEnd + Fast.big.count)...], as: UTF8.self).hasSuffix("from bytes\n"))
    }

    /// HEAD announces the body it does not send, on the general path (`/fast`) and the fast one (`/bytes`); the
    /// connection closes after `Connection: close` and after an HTTP/1.0 answer without keep-alive.
    func testHeadAnnouncesTheBodyItDoesNotSend() throws {
        for (target, body, closing) in [("/fast", "fast\n", "GET /fast HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"),
                                         ("/bytes", "from bytes\n", "GET /bytes HTTP/1.0\r\n\r\n")] {
            let fd = try connect()
            defer { close(fd) }
            send(fd, "HEAD \(target) HTTP/1.1\r\nHost: t\r\n\r\n" + closing)
            let text = receive(fd, responses: .max) // to EOF
            let parts = text.components(separatedBy: "HTTP/1.1 200 OK")
            XCTAssertEqual(parts.count, 3, text)
            XCTAssertTrue(parts[1].contains("Content-Length: \(body.utf8.count)\r\n") && parts[1].hasSuffix("Connection: keep-alive\r\n\r\n"),
                          "HEAD: length, no body: \(parts[1])")
            XCTAssertTrue(parts[2].contains("Connection: close") && parts[2].hasSuffix(body), parts[2])
            var byte: UInt8 = 0
            XCTAssertEqual(read(fd, &byte, 1), 0, "closed after \(closing)")
        }
    }

    /// A request held on a pool must not hold the loop: another connection on the same (only) loop is answered
    /// while it waits; the held one is answered once released.
    func testWorkOnAPoolNeverHoldsTheLoop() throws {
        let held = try connect(), other = try connect()
        defer { close(held); close(other) }
        send(held, "GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
        send(other, "GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
        let fast = receive(other, responses: 1)
        XCTAssertTrue(fast.hasSuffix("fast\n"), "answered while /held waits: \(fast)")
        Self.stub.release()
        XCTAssertTrue(receive(held, responses: 1).hasSuffix("held\n"))
    }

    func testFailuresTheTransportFindsAreAnsweredByTheResponderThenClosed() throws {
        let fd = try connect()
        defer { close(fd) }
        send(fd, "GET /fast HTTP/1.1\r\n\r\n")
        let text = receive(fd, responses: 2)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 Bad Request"), text)
        XCTAssertTrue(text.contains("Connection: close") && text.hasSuffix("HTTP/1.1 requests need a Host header\n"), text)
        let slow = try connect()
        defer { close(slow) }
        send(slow, "GET /fast HTTP/1.1\r\nHost: t\r\n") // never finished: the header timeout answers
        XCTAssertTrue(receive(slow, responses: 2).hasPrefix("HTTP/1.1 408 Request Timeout"))
        XCTAssertTrue(Self.stub.gate.withLock { Self.stub.failures.contains(.headerTimeout(0.5)) })
    }
}
