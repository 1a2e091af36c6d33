import POSIXSupport
import XCTest
@testable import Pyramid

final class FNV1aTests: XCTestCase {
    /// Published FNV-1a 64 test vectors, and the ETag that an encoded tile derives from them.
    func testKnownVectors() {
        XCTAssertEqual(FNV1a([]).hex16, "cbf29ce484222325")
        XCTAssertEqual(FNV1a(Array("a".utf8)).hex16, "af63dc4c8601ec8c")
        XCTAssertEqual(FNV1a(Array("foobar".utf8)).hex16, "85944171f73967e8")
        XCTAssertEqual(FNV1a(Array("a".utf8)).hex12, "af63dc4c8601")
        XCTAssertEqual(EncodedTile(bytes: Array("a".utf8), format: .jpeg, version: "0123456789ab").etag,
                       "\"0123456789ab-af63dc4c8601ec8c\"")
    }

    func testWordsStepOverLittleEndianWordsWithAZeroPaddedTail() {
        var words = FNV1a()
        words.add(words: [1, 0, 0, 0, 0, 0, 0, 0, 2, 3])
        var expected: UInt64 = 0xcbf2_9ce4_8422_2325
        for word: UInt64 in [1, 0x0302] { expected = (expected ^ word) &* 0x100_0000_01b3 }
        XCTAssertEqual(words.value, expected)
        var other = FNV1a()
        other.add(words: [1, 0, 0, 0, 0, 0, 0, 0, 2, 4])
        XCTAssertNotEqual(other.value, words.value)
    }
}
