import Foundation
import POSIXSupport
@testable import Pyramid
import XCTest

/// The shared store's writer: a pass's end marker is written after every write handed over before it, and only
/// those: later passes' writes, however slow, do not hold it back.
final class ObjectStoreWriterTests: XCTestCase {
    /// PUTs of names in `slow` wait until they are let go; every PUT is recorded as it ends.
    private final class Store: @unchecked Sendable {
        let gate = ConditionLock()
        var open: Set<String> = []
        let written = Locked<[String]>([])
        let slow: Set<String>
        init(slow: Set<String>) { self.slow = slow }

        func put(_ name: String) {
            if slow.contains(name) { gate.withLock { while !open.contains(name) { gate.wait() } } }
            written.withLock { $0.append(name) }
        }

        func letGo(_ name: String) {
            gate.withLock {
                open.insert(name)
                gate.broadcast()
            }
        }

        func wait(for name: String, seconds: Double = 10) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while !written.withLock({ $0.contains(name) }) && Date() < end { usleep(1000) }
            return written.withLock { $0.contains(name) }
        }
    }

    func testAnEndMarkerWaitsForTheWritesBeforeItAndNotForThoseAfter() {
        let store = Store(slow: ["a", "b", "later"])
        let writer = ObjectStoreWriter { name, _ in store.put(name) }
        writer.enqueue("a", [1])
        writer.enqueue("b", [2])
        writer.enqueue("c", [3])
        writer.enqueueAfterQueued("pass.done", [])
        writer.enqueue("later", [4])
        writer.enqueue("quick", [5])
        XCTAssertTrue(store.wait(for: "quick"))
        XCTAssertTrue(store.wait(for: "c"))
        usleep(50_000)
        XCTAssertFalse(store.written.withLock { $0.contains("pass.done") }, "the marker went before the writes queued ahead of it")
        XCTAssertEqual(writer.pending("a"), [1], "a tile waiting is read back from the queue")

        store.letGo("a")
        XCTAssertTrue(store.wait(for: "a"))
        usleep(50_000)
        XCTAssertFalse(store.written.withLock { $0.contains("pass.done") }, "the marker went before b")

        store.letGo("b")
        XCTAssertTrue(store.wait(for: "pass.done"), "the marker waited for a write queued after it")
        XCTAssertFalse(store.written.withLock { $0.contains("later") })

        store.letGo("later")
        writer.drain(timeout: 10)
        XCTAssertEqual(Set(store.written.withLock { $0 }), ["a", "b", "c", "pass.done", "later", "quick"])
    }

    func testAMarkerWithNothingBeforeItIsWrittenAtOnceAndDrainWaitsForIt() {
        let store = Store(slow: [])
        let writer = ObjectStoreWriter { name, _ in store.put(name) }
        writer.enqueueAfterQueued("pass.done", [])
        writer.drain(timeout: 10)
        XCTAssertEqual(store.written.withLock { $0 }, ["pass.done"])
    }
}
