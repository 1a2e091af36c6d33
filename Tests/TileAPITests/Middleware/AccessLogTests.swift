import Foundation
import XCTest
@testable import TileAPI

#if canImport(Glibc)
import Glibc
#endif

/// The access log writes on its own thread: a thread recording lines (an event loop) never blocks on the file,
/// and every line arrives, whole and in order, once the file takes them again.
final class AccessLogTests: XCTestCase {
    /// A log on a pipe nobody reads yet (a stalled disk, as far as a writer can tell: a write blocks once 64 KiB
    /// wait): recording several full batches returns at once; then every line reaches the reader.
    func testRecordingNeverWaitsForTheFile() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0) // both left open: the log's thread outlives the test, and never meets a closed pipe
        let log = AccessLog(fd: ends[1], interval: 0.05)
        let shard = log.makeShard()
        let lines = 3 * AccessLog.batchBytes / 60 // each line is about 60 bytes: three batches
        let recorded = expectation(description: "recorded")
        let recorder = Thread {
            let method = Array("GET".utf8)
            for k in 0 ..< lines {
                let target = Array("/tiles/12/\(k)/0.jpg".utf8)
                method.withUnsafeBytes { m in target.withUnsafeBytes { t in
                    shard.record(method: m, target: t, status: 200, bodyBytes: 1000, seconds: 0.00001, cache: .hit)
                } }
            }
            recorded.fulfill()
        }
        recorder.start()
        wait(for: [recorded], timeout: 20) // before: the recording thread wrote the first full batch itself, and hung

        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, received.split(separator: 0x0A).count < lines {
            var poll = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 200) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress!, $0.count) }
            if n > 0 { received += buffer[0 ..< n] }
        }
        let got = received.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(got.count, lines)
        let wrong = got.enumerated().first { !$0.element.hasSuffix(" GET /tiles/12/\($0.offset)/0.jpg 200 1000 10us hit") }
        XCTAssertNil(wrong, "lines arrive whole and in order")
    }
}
