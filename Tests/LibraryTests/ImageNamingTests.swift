import XCTest
@testable import Library
@testable import Pyramid

final class ImageNamingTests: XCTestCase {
    func testComponentsAreCleanedAndNeverDotsOrEmpty() {
        XCTAssertEqual(ImageNaming.component("My Photo!"), "my-photo")
        XCTAssertEqual(ImageNaming.component("Île"), "île")
        XCTAssertEqual(ImageNaming.component("Été à Paris (1)"), "été-à-paris-1")
        XCTAssertEqual(ImageNaming.component("e\u{301}te\u{301}"), "\u{E9}t\u{E9}", "decomposed letters are composed (NFC)")
        XCTAssertEqual(ImageNaming.component("東京 タワー_2"), "東京-タワー-2")
        XCTAssertEqual(ImageNaming.component("--a__b..c  "), "a-b-c")
        XCTAssertEqual(ImageNaming.component(".."), "image")
        XCTAssertEqual(ImageNaming.component("!!!"), "image")
        XCTAssertEqual(ImageNaming.component(""), "image")
        XCTAssertEqual(ImageNaming.stem(of: "/a/b/glacier.final.jpg"), "glacier-final")
    }

    func testLegacyIdsAreTheEarlierRule() {
        XCTAssertEqual(ImageNaming.legacyComponent("Été à Paris (1)"), "-t----Paris--1-")
        XCTAssertEqual(ImageNaming.legacyStem(of: "/a/My_Photo.final.JPG"), "My_Photo.final")
    }

    func testVisibleImageNamesAreImagesReadableOrNot() {
        for name in ["a.JPG", "a.png", "a.webp", "IMG_0001.HEIC", "a.avif", "a.jph", "a.gif", "a.jxl", "a.CR3"] {
            XCTAssertTrue(ImageNaming.isImage(name), name)
        }
        for name in [".a.jpg", "a.jpg.part", "a.tmp", "a.crdownload", "jpg", ".jpg", "notes.txt", "a.mov"] {
            XCTAssertFalse(ImageNaming.isImage(name), name)
        }
    }

    func testClashesAreResolvedTheSameWhateverTheOrder() {
        let names = ["b.png", "b.JPEG", "b.jpg", "a b.jpg", "a-b.jpg", "c.png"]
        let expected = ["b.jpg": "b", "b.JPEG": "b.jpeg", "b.png": "b.png", "a b.jpg": "a-b", "a-b.jpg": "a-b.jpg", "c.png": "c"]
        XCTAssertEqual(ImageNaming.ids(forFiles: names), expected)
        XCTAssertEqual(ImageNaming.ids(forFiles: names.reversed()), expected)
        XCTAssertEqual(ImageNaming.ids(forFiles: names.shuffled()), expected)
    }

    func testAnExtensionSuffixThatClashesAgainGetsANumber() {
        XCTAssertEqual(ImageNaming.ids(forFiles: ["x.png", "x.jpg", "X.png", "x.png.jpg"]),
                       ["x.jpg": "x", "X.png": "x.png", "x.png": "x.png-2", "x.png.jpg": "x-png"])
    }

    func testFoldersThatCleanToOneNameAreNumbered() {
        XCTAssertEqual(ImageNaming.ids(forFolders: ["My Trip", "My-Trip", "my trip"]),
                       ["My Trip": "my-trip", "My-Trip": "my-trip-2", "my trip": "my-trip-3"])
    }

    func testKeysSortByRootThenPathBytes() {
        let keys = [LibraryKey(root: 1, id: "a"), LibraryKey(root: 0, id: "b/c"), LibraryKey(root: 0, id: "b-c"), LibraryKey(root: 0, id: "b")]
        XCTAssertEqual(keys.sorted().map(\.id), ["b", "b-c", "b/c", "a"])
        XCTAssertEqual(LibraryKey.folder(of: "2024/iceland/glacier"), "2024/iceland")
        XCTAssertEqual(LibraryKey.folder(of: "top"), "")
    }
}
