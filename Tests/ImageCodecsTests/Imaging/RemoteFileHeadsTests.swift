import POSIXSupport
import XCTest
@testable import ImageCodecs

/// An object's first bytes are kept once its first block was fetched, after the block cache dropped that block:
/// a read within them needs no request, one past them fetches the block again, and a replaced object (another
/// ETag) has no head known until it is read.
final class RemoteFileHeadsTests: XCTestCase {
    private func read(_ file: RemoteFile, _ count: Int, at offset: Int) -> [UInt8] {
        var got = [UInt8](repeating: 0, count: count)
        let n = got.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, count: count, at: UInt64(offset)) }
        XCTAssertEqual(n, Int64(count))
        return got
    }

    func testTheHeadOutlivesItsBlockAndIsReadWithoutARequest() throws {
        let block = RemoteFile.blockBytes
        let objects = MemoryObjects()
        var bytes = [UInt8](repeating: 0, count: 6 * block)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 7 &+ i >> 9) }
        objects.put("s3://masters/a.tif", bytes, tag: "\"a\"")
        ImageInput.configureObjectCache(budget: 3 * (block + 96))    // three blocks
        let file = try RemoteFile.open("s3://masters/a.tif", objects: objects, structures: nil)
        XCTAssertNil(file.knownHead(16), "nothing of the object was read yet")

        XCTAssertEqual(read(file, 16, at: 0), Array(bytes[0 ..< 16]))
        XCTAssertEqual(file.knownHead(8), Array(bytes[0 ..< 8]))
        for i in 1 ..< 6 { XCTAssertEqual(read(file, 1, at: i * block), [bytes[i * block]]) }
        XCTAssertNil(RemoteFile.blocks.withLock { $0 }.value(for: file.key(0), countingMiss: false), "the first block is still cached")

        XCTAssertEqual(file.knownHead(16), Array(bytes[0 ..< 16]))
        let before = objects.reads.count
        XCTAssertEqual(read(file, 8, at: 4), Array(bytes[4 ..< 12]))
        XCTAssertEqual(objects.reads.count, before, "a read within the head sent a request: \(objects.reads.dropFirst(before))")
        XCTAssertEqual(read(file, 8, at: 12), Array(bytes[12 ..< 20]))
        XCTAssertEqual(Array(objects.reads.dropFirst(before)), ["s3://masters/a.tif@0+\(block)"], "a read past the head fetches its block")

        objects.put("s3://masters/a.tif", bytes.reversed(), tag: "\"b\"")
        let replaced = try RemoteFile.open("s3://masters/a.tif", objects: objects, structures: nil)
        XCTAssertNil(replaced.knownHead(16), "the replaced object's head was taken from the old version")
        XCTAssertEqual(read(replaced, 16, at: 0), Array(bytes.reversed()[0 ..< 16]))
    }
}
