import POSIXSupport
import XCTest
@testable import ImageCodecs

#if canImport(Glibc)
import Glibc
#endif

/// A decode streaming through an object far away (a JPEG's first pass reads it from end to end): once the reads
/// follow on from each other, the next run of blocks is fetched on another thread while the one before is read, so
/// the reader waits for the ramp's few GETs and not for one per run after it; no byte is fetched twice, and what it
/// reads is the object.
final class RemoteFileStreamingTests: XCTestCase {
    func testASequentialReadFetchesTheNextRunWhileItReadsThisOne() throws {
        let size = 12 << 20
        var bytes = [UInt8](repeating: 0, count: size)
        for i in 0 ..< size { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
        let objects = MemoryObjects(delay: 0.02)
        objects.put("s3://masters/long.jpg", bytes, tag: "\"one\"")
        ImageInput.configureObjectCache(budget: 64 << 20)
        let input = try ImageFiles(objects: objects).open("s3://masters/long.jpg")
        let me = UInt(pthread_self())
        var read: [UInt8] = []
        read.reserveCapacity(size)
        var offset: Int64 = 0
        while offset < Int64(size) {
            let chunk = try input.read(count: 64 << 10, at: offset)
            XCTAssertFalse(chunk.isEmpty)
            read += chunk
            offset += Int64(chunk.count)
            usleep(500)     // a decode's work on what it read
        }
        XCTAssertEqual(read, bytes)
        let threads = objects.readThreads, reads = objects.reads
        // The ramp (1, 2 and 4 blocks) on the reader's thread; from then on the runs come ahead of it.
        let mine = threads.filter { $0 == me }.count
        XCTAssertLessThanOrEqual(mine, 4, "the reader waited for \(mine) of \(reads.count) GETs: \(reads)")
        XCTAssertGreaterThan(reads.count - mine, 3, "nothing was fetched ahead: \(reads)")
        // Every block once.
        let ranges = reads.map { read -> (Int, Int) in
            let parts = read.split(separator: "@")[1].split(separator: "+")
            return (Int(parts[0])!, Int(parts[1])!)
        }.sorted { $0.0 < $1.0 }
        var end = 0
        for (start, count) in ranges {
            XCTAssertGreaterThanOrEqual(start, end, "fetched twice: \(ranges)")
            end = start + count
        }
    }
}
