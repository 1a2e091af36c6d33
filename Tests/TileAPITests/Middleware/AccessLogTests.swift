import Foundation
import Synchronization
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
            Self.record(lines, into: shard)
            recorded.fulfill()
        }
        recorder.start()
        wait(for: [recorded], timeout: 20) // before: the recording thread wrote the first full batch itself, and hung
        Self.expectLines(lines, from: ends[0])
    }

    /// A file that stays stalled: past 16 batches pending, the recording thread waits on it rather than keep
    /// every line in memory, and goes on once the file takes lines again; none is lost.
    func testAStalledFileHoldsTheRecorderBackInsteadOfGrowingWithoutBound() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0) // both left open, as above
        let log = AccessLog(fd: ends[1], interval: 0.05)
        let shard = log.makeShard()
        let lines = 20 * AccessLog.batchBytes / 60 // about 20 batches: past the 16 a stalled file may leave pending
        let done = Atomic<Bool>(false)
        let recorder = Thread {
            Self.record(lines, into: shard)
            done.store(true, ordering: .releasing)
        }
        recorder.start()
        usleep(1_000_000) // recording 20 batches takes a few milliseconds when nothing holds it back
        XCTAssertFalse(done.load(ordering: .acquiring), "the recorder waits while nobody reads the log")
        Self.expectLines(lines, from: ends[0])
        XCTAssertTrue(done.load(ordering: .acquiring))
    }

    private static func record(_ lines: Int, into shard: AccessLog.Shard) {
        let method = Array("GET".utf8)
        for k in 0 ..< lines {
            let target = Array("/tiles/12/\(k)/0.jpg".utf8)
            method.withUnsafeBytes { m in target.withUnsafeBytes { t in
                shard.record(method: m, target: t, status: 200, bodyBytes: 1000, seconds: 0.00001, cache: .hit)
            } }
        }
    }

    /// Reads `lines` lines from `fd` (20 s at most) and checks each is the one recorded in its turn.
    private static func expectLines(_ lines: Int, from fd: CInt, file: StaticString = #filePath, line: UInt = #line) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, received.split(separator: 0x0A).count < lines {
            var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 200) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n > 0 { received += buffer[0 ..< n] }
        }
        let got = received.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(got.count, lines, file: file, line: line)
        let wrong = got.enumerated().first { !$0.element.hasSuffix(" GET /tiles/12/\($0.offset)/0.jpg 200 1000 10us hit") }
        XCTAssertNil(wrong, "lines arrive whole and in order", file: file, line: line)
    }
}
