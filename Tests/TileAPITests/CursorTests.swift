import XCTest
@testable import Library
@testable import TileAPI

/// Listing cursors (`?after=`) and the base64 they are written in.
final class CursorTests: XCTestCase {
    func testCursorsRoundTripAndRefuseGarbage() {
        let key = LibraryKey(root: 3, id: "2024/iceland/glacier")
        XCTAssertEqual(LibraryKey(cursor: key.cursor), key)
        XCTAssertFalse(key.cursor.contains("/") || key.cursor.contains("+") || key.cursor.contains("="))
        for garbage in ["", "!!", "a", "MDoy\u{e9}"] { XCTAssertNil(LibraryKey(cursor: garbage), garbage) }
        for length in 0 ..< 8 {
            let bytes = (0 ..< length).map { UInt8(truncatingIfNeeded: $0 * 37 + 200) }
            XCTAssertEqual(Base64.decode(Base64.encode(bytes, .url), .url), bytes)
            XCTAssertEqual(Base64.decode(Base64.encode(bytes, .standard), .standard), bytes)
        }
        XCTAssertEqual(Base64.encode(Array("foobar".utf8), .url), "Zm9vYmFy")
        XCTAssertEqual(Base64.encode(Array("fo".utf8), .url), "Zm8")
        // RFC 4648 §10's vectors, and the two alphabets' last digits.
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, coded) in vectors { XCTAssertEqual(Base64.encode(Array(plain.utf8), .standard), coded) }
        XCTAssertEqual(Base64.encode([0xFB, 0xFF], .standard), "+/8=")
        XCTAssertEqual(Base64.encode([0xFB, 0xFF], .url), "-_8")
        XCTAssertNil(Base64.decode("+/8=", .url))
    }
}
