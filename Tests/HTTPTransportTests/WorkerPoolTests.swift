import Foundation
import POSIXSupport
import XCTest
@testable import HTTPTransport

final class WorkerPoolTests: XCTestCase {
    private func waitFor(_ condition: () -> Bool, seconds: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition() && Date() < end { usleep(1000) }
        return condition()
    }

    /// A job waiting on another thread's work (`BlockingWait`) does not hold its place: with one thread, the job
    /// queued behind it runs meanwhile (here the waiter waits for exactly that job, so without the spare thread it
    /// would wait forever), and once the wait is over the pool is back to one job at a time.
    func testAJobWaitingOnOtherWorkLetsTheNextOneRun() {
        let pool = WorkerPool(threads: 1, lowPriorityLimit: 0)
        let released = ConditionLock()
        let state = Locked((released: false, waiterDone: false, running: 0, most: 0))
        pool.submit {
            BlockingWait.during {
                released.withLock { while !state.withLock({ $0.released }) { released.wait() } }
            }
            state.withLock { $0.waiterDone = true }
        }
        pool.submit {
            released.withLock {
                state.withLock { $0.released = true }
                released.broadcast()
            }
        }
        XCTAssertTrue(waitFor { state.withLock { $0.waiterDone } }, "the job behind a waiting one never ran")

        // Back to one at a time: ten jobs that note how many run together.
        for _ in 0 ..< 10 {
            pool.submit {
                state.withLock {
                    $0.running += 1
                    $0.most = max($0.most, $0.running)
                }
                usleep(2000)
                state.withLock { $0.running -= 1 }
            }
        }
        let done = Locked(false)
        pool.submit { done.withLock { $0 = true } }
        XCTAssertTrue(waitFor { done.withLock { $0 } })
        XCTAssertEqual(state.withLock { $0.most }, 1, "the spare thread stayed after the wait")
    }

    /// A wait outside any pool's thread just runs.
    func testAWaitOffThePoolJustRuns() {
        XCTAssertEqual(BlockingWait.during { 42 }, 42)
    }
}
