import XCTest
@testable import HTTPTransport
import TestSupport

/// The request parser on bytes, without sockets.
final class HTTPParserTests: XCTestCase {
    private let parser = HTTPParser()

    private func parse(_ text: String) -> HTTPParser.Result { parse(Array(text.utf8)) }

    private func parse(_ bytes: [UInt8]) -> HTTPParser.Result {
        bytes.withUnsafeBytes { parser.parse($0) }
    }

    private func request(_ result: HTTPParser.Result, file: StaticString = #filePath, line: UInt = #line) -> (HTTPRequest, Int)? {
        guard case let .request(request, consumed) = result else {
            XCTFail("expected a request, got \(result)", file: file, line: line)
            return nil
        }
        return (request, consumed)
    }

    private func status(_ result: HTTPParser.Result) -> Int? {
        if case let .failure(status, _) = result { return status.code }
        return nil
    }

    let simple = "GET /tiles/3/1/2.jpg?x=1 HTTP/1.1\r\nHost: example\r\nIf-None-Match: \"abc\"\r\n\r\n"

    func testParsesARequestHead() throws {
        let (r, consumed) = try XCTUnwrap(request(parse(simple)))
        XCTAssertEqual(consumed, simple.utf8.count)
        XCTAssertEqual(r.method, "GET")
        XCTAssertEqual(r.target, "/tiles/3/1/2.jpg?x=1")
        XCTAssertEqual(r.path, "/tiles/3/1/2.jpg")
        XCTAssertEqual(r.query, "x=1")
        XCTAssertEqual(r.versionMinor, 1)
        XCTAssertEqual(r.header("host"), "example")
        XCTAssertEqual(r.header("if-none-match"), "\"abc\"")
        XCTAssertTrue(r.keepAlive)
    }

    func testEveryByteBoundaryIsIncompleteUntilTheEnd() {
        let bytes = Array(simple.utf8)
        for cut in 0 ..< bytes.count {
            XCTAssertEqual(parse(Array(bytes[0 ..< cut])), .incomplete, "cut at \(cut)")
        }
        XCTAssertNotNil(request(parse(bytes)))
    }

    func testPipelinedRequestsParseOneAfterAnother() throws {
        let two = simple + "HEAD /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n" + "GET /x HTTP/1.1\r\nHo"
        let bytes = Array(two.utf8)
        let (first, n1) = try XCTUnwrap(request(parse(bytes)))
        XCTAssertEqual(first.method, "GET")
        let (second, n2) = try XCTUnwrap(request(parse(Array(bytes[n1...]))))
        XCTAssertEqual(second.method, "HEAD")
        XCTAssertFalse(second.keepAlive)
        XCTAssertEqual(parse(Array(bytes[(n1 + n2)...])), .incomplete)
    }

    func testKeepAliveRules() throws {
        XCTAssertEqual(request(parse("GET / HTTP/1.0\r\n\r\n"))?.0.keepAlive, false)
        XCTAssertEqual(request(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"))?.0.keepAlive, true)
        XCTAssertEqual(request(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\n"))?.0.keepAlive, false)
        XCTAssertEqual(request(parse("GET / HTTP/1.1\nHost: a\n\n"))?.0.keepAlive, true, "bare LF line ends are accepted")
    }

    func testTinyBodiesAreConsumedLargeOnesRefused() throws {
        let small = "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
        XCTAssertEqual(parse(String(small.dropLast(2))), .incomplete)
        XCTAssertEqual(request(parse(small))?.1, small.utf8.count)
        XCTAssertEqual(status(parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n")), 413)
        XCTAssertEqual(status(parse("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")), 413)
        XCTAssertEqual(status(parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n")), 400)
        XCTAssertEqual(status(parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n")), 400)
    }

    func testLimits() {
        let longTarget = "GET /" + String(repeating: "a", count: 8200) + " HTTP/1.1\r\n"
        XCTAssertEqual(status(parse(longTarget)), 414)
        XCTAssertEqual(status(parse(String(longTarget.prefix(8300)))), 414, "a long line is refused before it ends")
        XCTAssertEqual(parse(String(longTarget.prefix(8000))), .incomplete)
        let bigHeader = "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "b", count: 17000) + "\r\n\r\n"
        XCTAssertEqual(status(parse(bigHeader)), 431)
        XCTAssertEqual(status(parse(String(bigHeader.prefix(16800)))), 431, "refused before the header ends")
        let many = "GET / HTTP/1.1\r\nHost: a\r\n" + (0 ..< 100).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        XCTAssertEqual(status(parse(many)), 431)
        let ninetyNine = "GET / HTTP/1.1\r\nHost: a\r\n" + (0 ..< 99).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        XCTAssertNotNil(request(parse(ninetyNine)))
    }

    func testBadSyntax() {
        for bad in ["GET /\r\n\r\n", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", "G(ET / HTTP/1.1\r\nHost: a\r\n\r\n",
                    "GET / HTTP/1.x\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\nHost a\r\n\r\n", "GET / HTTP/1.1\r\n: v\r\n\r\n",
                    "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n",
                    "GET /\u{7}x HTTP/1.1\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\u{1}b\r\n\r\n"] {
            XCTAssertEqual(status(parse(bad)), 400, bad.debugDescription)
        }
        XCTAssertEqual(status(parse("GET / HTTP/2.0\r\nHost: a\r\n\r\n")), 505)
        XCTAssertEqual(status(parse([0x47, 0x45, 0x54, 0x20, 0x2F, 0xFF, 0x20] + Array("HTTP/1.1\r\n\r\n".utf8))), 400)
    }

    /// Request smuggling shapes: framing two parties could read differently is refused, never guessed.
    func testAmbiguousFramingIsRefused() {
        for bad in ["GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
                    "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
                    "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc",
                    "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
                    "GET / HTTP/1.1\r\nContent-Length: 0\r\nTransfer-Encoding: identity\r\nHost: a\r\n\r\n",
                    "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"] {
            XCTAssertEqual(status(parse(bad)), 400, bad.debugDescription)
        }
        XCTAssertEqual(status(parse("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")), 413)
    }

    /// Inputs the fuzzer found or was seeded with (Fuzz/Regressions/http, Fuzz/Corpus/http): each parses to an
    /// answer without trapping, and a request never claims more bytes than it was given.
    func testFuzzInputsParse() throws {
        let inputs = try FuzzInputs.contents(of: "http")
        for (name, data) in inputs {
            var offset = 0
            while offset < data.count, case let .request(_, consumed) = parse(Array(data[offset...])) {
                XCTAssertTrue(consumed > 0 && consumed <= data.count - offset, name)
                offset += consumed
            }
        }
        XCTAssertGreaterThanOrEqual(inputs.count, 5, "the seed corpus is there")
    }
}
