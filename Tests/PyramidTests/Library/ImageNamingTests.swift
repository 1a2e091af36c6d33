import XCTest
@testable import Pyramid

final class ImageNamingTests: XCTestCase {
    func testComponentsAreCleanedAndNeverDotsOrEmpty() {
        XCTAssertEqual(ImageNaming.component("My Photo!"), "My-Photo-")
        XCTAssertEqual(ImageNaming.component("Île"), "-le")
        XCTAssertEqual(ImageNaming.component(".."), "image")
        XCTAssertEqual(ImageNaming.component(""), "image")
        XCTAssertEqual(ImageNaming.stem(of: "/a/b/glacier.final.jpg"), "glacier.final")
    }

    func testOnlyVisibleJPEGAndPNGNamesAreImages() {
        XCTAssertEqual(ImageNaming.imageFormat(of: "a.JPG"), .jpeg)
        XCTAssertEqual(ImageNaming.imageFormat(of: "a.png"), .png)
        for name in [".a.jpg", "a.jpg.part", "a.tmp", "a.crdownload", "jpg", ".jpg", "notes.txt"] {
            XCTAssertNil(ImageNaming.imageFormat(of: name), name)
        }
    }

    func testClashesAreResolvedTheSameWhateverTheOrder() {
        let names = ["b.png", "b.JPEG", "b.jpg", "a b.jpg", "a-b.jpg", "c.png"]
        let expected = ["b.jpg": "b", "b.JPEG": "b.jpeg", "b.png": "b.png", "a b.jpg": "a-b", "a-b.jpg": "a-b.jpg", "c.png": "c"]
        XCTAssertEqual(ImageNaming.ids(forFiles: names), expected)
        XCTAssertEqual(ImageNaming.ids(forFiles: names.reversed()), expected)
        XCTAssertEqual(ImageNaming.ids(forFiles: names.shuffled()), expected)
    }

    func testAnExtensionSuffixThatClashesWithAStemGetsANumber() {
        XCTAssertEqual(ImageNaming.ids(forFiles: ["x.png", "x.jpg", "x.png.jpg"]),
                       ["x.jpg": "x", "x.png.jpg": "x.png", "x.png": "x.png-2"])
    }

    func testFoldersThatCleanToOneNameAreNumbered() {
        XCTAssertEqual(ImageNaming.ids(forFolders: ["My Trip", "My-Trip"]), ["My Trip": "My-Trip", "My-Trip": "My-Trip-2"])
    }

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

    func testKeysSortByRootThenPathBytes() {
        let keys = [LibraryKey(root: 1, id: "a"), LibraryKey(root: 0, id: "b/c"), LibraryKey(root: 0, id: "b-c"), LibraryKey(root: 0, id: "b")]
        XCTAssertEqual(keys.sorted().map(\.id), ["b", "b-c", "b/c", "a"])
        XCTAssertEqual(LibraryKey.folder(of: "2024/iceland/glacier"), "2024/iceland")
        XCTAssertEqual(LibraryKey.folder(of: "top"), "")
    }
}
