import Foundation
import POSIXSupport
import XCTest

final class ConcurrentWaitsTests: XCTestCase {
    /// Twenty jobs that each wait 50 ms, eight at a time: every job runs once, at most eight at once, and the call
    /// returns after them all, in about three waits rather than twenty.
    func testEveryJobRunsOnceAtMostWidthAtOnce() {
        let state = Locked((runs: [Int](repeating: 0, count: 20), running: 0, most: 0))
        let started = Date()
        ConcurrentWaits.run(20, width: 8) { i in
            state.withLock { $0.runs[i] += 1; $0.running += 1; $0.most = max($0.most, $0.running) }
            usleep(50_000)
            state.withLock { $0.running -= 1 }
        }
        let seconds = Date().timeIntervalSince(started)
        state.withLock { s in
            XCTAssertEqual(s.runs, [Int](repeating: 1, count: 20))
            XCTAssertEqual(s.running, 0, "returned before every job ended")
            XCTAssertLessThanOrEqual(s.most, 8)
            XCTAssertGreaterThan(s.most, 1)
        }
        XCTAssertLessThan(seconds, 0.6, "the jobs ran one after another")
    }
}
