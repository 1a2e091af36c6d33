import Dispatch
import Foundation
import POSIXSupport
import XCTest
@testable import Pyramid

final class RenderBudgetTests: XCTestCase {
    func testLeasesAreGivenBackWhenReleasedOrDropped() throws {
        let budget = RenderBudget(capacity: 100)
        var lease: RenderBudget.Lease? = try budget.acquire(60)
        XCTAssertEqual(budget.usage.inUse, 60)
        let second = try budget.acquire(40)
        XCTAssertEqual(budget.usage.inUse, 100)
        second.release()
        second.release()
        XCTAssertEqual(budget.usage.inUse, 60, "a second release gives nothing back twice")
        lease = nil
        XCTAssertNil(lease)
        XCTAssertEqual(budget.usage.inUse, 0)
        XCTAssertEqual(budget.usage.peak, 100)
    }

    func testMoreThanTheWholeBudgetIsTooLarge() {
        let budget = RenderBudget(capacity: 3 << 20)
        XCTAssertThrowsError(try budget.acquire(5 << 20)) { error in
            XCTAssertEqual(error as? RenderBudgetError, .tooLarge(bytes: 5 << 20, capacity: 3 << 20))
            XCTAssertEqual("\(error)", "this request needs 5 MB of pixel memory at once; the render budget is 3 MB "
                + "(--render-memory-mb); ask for a smaller size or region")
        }
    }

    func testAWaiterGetsMemoryWhenItIsFreed() throws {
        let budget = RenderBudget(capacity: 100, queueLimit: 4, maxWait: 30)
        let held = try budget.acquire(80)
        let got = expectation(description: "the waiter's lease")
        DispatchQueue.global().async {
            if let lease = try? budget.acquire(50) {
                XCTAssertEqual(lease.bytes, 50)
                got.fulfill()
            }
        }
        while budget.usage.waiting == 0 { usleep(1000) }
        held.release()
        wait(for: [got], timeout: 10)
    }

    func testAFullQueueAndAnExpiredWaitAreBusy() throws {
        let budget = RenderBudget(capacity: 100, queueLimit: 1, maxWait: 0.3)
        let held = try budget.acquire(100)
        let waiterDone = expectation(description: "the queued waiter times out")
        DispatchQueue.global().async {
            do { _ = try budget.acquire(10) } catch let error as RenderBudgetError {
                if case .busy = error { waiterDone.fulfill() }
            } catch {}
        }
        while budget.usage.waiting == 0 { usleep(1000) }
        XCTAssertThrowsError(try budget.acquire(10), "the queue holds one") { error in
            guard case let RenderBudgetError.busy(waiting, retryAfter) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(waiting, 1)
            XCTAssertGreaterThanOrEqual(retryAfter, 1)
        }
        wait(for: [waiterDone], timeout: 10)
        XCTAssertEqual(budget.usage.waiting, 0)
        XCTAssertEqual(budget.usage.refusals, 2)
        held.release()
        XCTAssertNoThrow(try budget.acquire(100))
    }

    /// Waiters are served in arrival order: a small request does not overtake a large one ahead of it.
    func testWaitersAreServedInOrder() throws {
        let budget = RenderBudget(capacity: 100, queueLimit: 8, maxWait: 30)
        let held = try budget.acquire(90)
        let granted = Locked<[Int]>([])
        let done = DispatchGroup()
        for (i, size) in [(0, 80), (1, 5)] {
            done.enter()
            DispatchQueue.global().async {
                if let lease = try? budget.acquire(size) {
                    granted.withLock { $0.append(i) }
                    usleep(20_000)
                    lease.release()
                }
                done.leave()
            }
            while budget.usage.waiting <= i { usleep(1000) }
        }
        // 5 bytes would fit beside the 90 held, but the 80 ahead of them waits: neither is granted.
        usleep(50_000)
        XCTAssertEqual(budget.usage.inUse, 90)
        XCTAssertEqual(budget.usage.waiting, 2)
        XCTAssertEqual(granted.withLock { $0 }, [])
        held.release()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(granted.withLock { $0.sorted() }, [0, 1])
        XCTAssertEqual(budget.usage.inUse, 0)
    }
}
