import Foundation
import POSIXSupport
import XCTest

final class ConditionLockTests: XCTestCase {
    /// Threads waiting on two conditions of one lock: a signal of one condition wakes one thread waiting on it and
    /// none waiting on the other (counted as returns from `wait`, which a wrong wake-up would show even though the
    /// woken thread goes back to waiting); a broadcast wakes the rest.
    func testASignalWakesOneWaiterOfItsOwnCondition() {
        let lock = ConditionLock(conditions: 2)
        nonisolated(unsafe) var tickets = [0, 0]    // guarded by `lock`: wake-ups handed out per condition
        nonisolated(unsafe) var waiting = [0, 0]
        nonisolated(unsafe) var returns = [0, 0]   // returns from `wait` per condition
        let woken = Locked([0, 0])
        let done = DispatchGroup()
        for which in [0, 0, 0, 1, 1, 1] {
            done.enter()
            startDetachedThread {
                lock.withLock {
                    waiting[which] += 1
                    while tickets[which] == 0 {
                        lock.wait(on: which)
                        returns[which] += 1
                    }
                    tickets[which] -= 1
                }
                woken.withLock { $0[which] += 1 }
                done.leave()
            }
        }
        func settled(_ want: [Int]) -> Bool {
            for _ in 0 ..< 400 where woken.withLock({ $0 }) != want { usleep(5_000) }
            return woken.withLock { $0 } == want
        }
        while lock.withLock({ waiting }) != [3, 3] { usleep(1_000) }
        lock.withLock { tickets[1] += 1; lock.signal(1) }
        XCTAssertTrue(settled([0, 1]), "one waiter of condition 1 should wake: \(woken.withLock { $0 })")
        usleep(50_000)
        XCTAssertEqual(woken.withLock { $0 }, [0, 1])
        XCTAssertEqual(lock.withLock { returns }, [0, 1], "a signal of condition 1 should wake one thread, of condition 1")
        lock.withLock { tickets[0] += 1; lock.signal(0) }
        XCTAssertTrue(settled([1, 1]), "one waiter of condition 0 should wake: \(woken.withLock { $0 })")
        lock.withLock { tickets = [2, 2]; lock.broadcast() }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "a broadcast should wake every waiter on every condition")
        XCTAssertEqual(woken.withLock { $0 }, [3, 3])
    }

    /// A lock of one condition works as before: `wait()` returns after `broadcast`.
    func testOneConditionWaitsAndWakes() {
        let lock = ConditionLock()
        nonisolated(unsafe) var ready = false
        let done = DispatchGroup()
        done.enter()
        startDetachedThread {
            lock.withLock { while !ready { lock.wait() } }
            done.leave()
        }
        usleep(20_000)
        lock.withLock { ready = true; lock.broadcast() }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
    }
}
