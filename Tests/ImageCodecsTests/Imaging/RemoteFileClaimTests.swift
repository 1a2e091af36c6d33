import POSIXSupport
import XCTest
@testable import ImageCodecs

#if canImport(Glibc)
import Glibc
#endif

/// A read never waits behind prefetches queued for a thread: while every prefetch thread waits on a store that
/// hangs for one object, a read of another object's block whose prefetch is still queued sends that GET itself and
/// is answered; the queued prefetch then sends nothing, so the block is fetched once.
final class RemoteFileClaimTests: XCTestCase {
    func testAReadTakesOverAPrefetchStillQueuedForAThread() throws {
        let block = RemoteFile.blockBytes
        let threads = ObjectPrefetch.shared.threads
        let objects = MemoryObjects()
        let hung = [UInt8](repeating: 7, count: 2 * threads * block)
        var wanted = [UInt8](repeating: 0, count: 4 * block)
        for i in wanted.indices { wanted[i] = UInt8(truncatingIfNeeded: i &* 31 >> 5) }
        objects.put("s3://masters/hung.tif", hung, tag: "\"h\"")
        objects.put("s3://masters/wanted.tif", wanted, tag: "\"w\"")
        ImageInput.configureObjectCache(budget: 256 << 20)
        objects.hold("s3://masters/hung.tif")
        defer { objects.release("s3://masters/hung.tif") }

        // Every prefetch thread takes one GET of the hung object (every other block: one GET each) and waits.
        let hungFile = try RemoteFile.open("s3://masters/hung.tif", objects: objects, structures: nil)
        hungFile.prefetch((0 ..< threads).map { (offset: Int64(2 * $0 * block), count: block) }, ahead: false)
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while objects.heldGETs < threads, MonotonicClock.nanoseconds() < deadline { usleep(1000) }
        XCTAssertEqual(objects.heldGETs, threads, "the prefetch threads did not all take a GET of the hung object")

        // The wanted object's first two blocks are queued behind them; a read of the second is answered at once.
        let file = try RemoteFile.open("s3://masters/wanted.tif", objects: objects, structures: nil)
        file.prefetch([(offset: 0, count: 2 * block)], ahead: false)
        let done = Locked<(count: Int64, bytes: [UInt8])?>(nil)
        startDetachedThread {
            var got = [UInt8](repeating: 0, count: 1000)
            let n = got.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, count: 1000, at: UInt64(block + 5)) }
            done.withLock { $0 = (n, got) }
        }
        let answered = MonotonicClock.nanoseconds() + 5_000_000_000
        while done.withLock({ $0 }) == nil, MonotonicClock.nanoseconds() < answered { usleep(1000) }
        let read = try XCTUnwrap(done.withLock { $0 }, "the read waited for a prefetch queued behind a hung store")
        XCTAssertEqual(read.count, 1000)
        XCTAssertEqual(read.bytes, Array(wanted[block + 5 ..< block + 1005]))

        // Once the hung store answers, the threads come free and the queued prefetch runs: it sends nothing, so the
        // wanted blocks were fetched once.
        objects.release("s3://masters/hung.tif")
        let settle = MonotonicClock.nanoseconds() + 5_000_000_000
        while objects.heldGETs > 0, MonotonicClock.nanoseconds() < settle { usleep(1000) }
        usleep(200_000)
        let wantedReads = objects.reads.filter { $0.hasPrefix("s3://masters/wanted.tif") }
        XCTAssertEqual(wantedReads, ["s3://masters/wanted.tif@0+\(2 * block)"])
    }
}
