import Foundation
import POSIXSupport
import XCTest

final class BlockingWaitTests: XCTestCase {
    private final class Counter: BlockingObserver, @unchecked Sendable {
        let calls = Locked((will: 0, did: 0))
        func willBlock() { calls.withLock { $0.will += 1 } }
        func didUnblock() { calls.withLock { $0.did += 1 } }
    }

    private final class Weak: @unchecked Sendable {
        weak var counter: Counter?
    }

    /// A wait on a thread with an observer is announced before and after; the observer is let go when the thread
    /// ends (a pool's spare threads come and go: each would otherwise keep its pool's observer box for ever).
    func testAWaitIsAnnouncedAndTheObserverGoesWithItsThread() {
        let weak = Weak()
        let seen = Locked<(will: Int, did: Int)?>(nil)
        let done = Locked(false)
        Thread {
            let counter = Counter()
            weak.counter = counter
            BlockingWait.install(counter)
            XCTAssertEqual(BlockingWait.during { counter.calls.withLock { $0.will } }, 1, "announced before the wait")
            seen.withLock { $0 = counter.calls.withLock { $0 } }
            done.withLock { $0 = true }
        }.start()
        let end = Date().addingTimeInterval(10)
        while (!done.withLock({ $0 }) || weak.counter != nil) && Date() < end { usleep(1000) }
        XCTAssertEqual(seen.withLock { $0?.will }, 1)
        XCTAssertEqual(seen.withLock { $0?.did }, 1)
        XCTAssertNil(weak.counter, "the observer outlived its thread")
    }
}
