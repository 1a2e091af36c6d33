import Dispatch
import XCTest
@testable import ImageCodecs
import ImageTestSupport

final class LRUCacheTests: XCTestCase {
    private func cache(_ budget: Int) -> LRUCache<Int, [UInt8]> {
        LRUCache(budget: budget, cost: { $0.count })
    }

    func testEvictsLeastRecentlyUsedFirst() {
        let c = cache(300)
        c.insert([UInt8](repeating: 1, count: 100), for: 1)
        c.insert([UInt8](repeating: 2, count: 100), for: 2)
        c.insert([UInt8](repeating: 3, count: 100), for: 3)
        XCTAssertNotNil(c.value(for: 1))                     // 1 is now the most recent
        c.insert([UInt8](repeating: 4, count: 100), for: 4)  // evicts 2, the least recent
        XCTAssertEqual(c.keysByRecency, [4, 1, 3])
        XCTAssertNil(c.value(for: 2))
        c.insert([UInt8](repeating: 5, count: 250), for: 5)  // needs 250: evicts 3, 1, then 4
        XCTAssertEqual(c.keysByRecency, [5])
        let s = c.statistics
        XCTAssertEqual(s.evictions, 4)
        XCTAssertEqual(s.bytes, 250)
        XCTAssertEqual(s.entries, 1)
        XCTAssertEqual(s.hits, 1)
        XCTAssertEqual(s.misses, 1)
    }

    func testReplacingAndOversizedEntries() {
        let c = cache(100)
        c.insert([UInt8](repeating: 0, count: 60), for: 1)
        c.insert([UInt8](repeating: 0, count: 30), for: 1)
        XCTAssertEqual(c.statistics.bytes, 30)
        c.insert([UInt8](repeating: 0, count: 101), for: 2)
        XCTAssertFalse(c.keysByRecency.contains(2), "an entry larger than the budget is not kept")
        XCTAssertEqual(c.statistics.bytes, 30)
        XCTAssertEqual(c.removeAll { $0 == 1 }, 1)
        XCTAssertEqual(c.statistics.bytes, 0)
    }

    func testByteBoundHoldsUnderConcurrency() {
        let c = cache(10_000)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var rng = SplitMix(seed: UInt64(worker))
            for _ in 0 ..< 5_000 {
                let key = Int(rng.next() % 500)
                if c.value(for: key) == nil {
                    c.insert([UInt8](repeating: UInt8(key % 256), count: 10 + key % 90), for: key)
                }
                XCTAssertLessThanOrEqual(c.statistics.bytes, 10_000)
            }
        }
        let s = c.statistics
        XCTAssertLessThanOrEqual(s.bytes, 10_000)
        XCTAssertEqual(s.hits + s.misses, 40_000)
        XCTAssertGreaterThan(s.evictions, 0)
        XCTAssertEqual(c.keysByRecency.count, s.entries)
        for key in c.keysByRecency {
            XCTAssertEqual(c.value(for: key)?.count, 10 + key % 90, "values stay with their keys")
        }
    }
}
