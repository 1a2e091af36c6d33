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
}
