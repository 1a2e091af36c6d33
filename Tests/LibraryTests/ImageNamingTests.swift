import XCTest
@testable import Library
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

    func testKeysSortByRootThenPathBytes() {
        let keys = [LibraryKey(root: 1, id: "a"), LibraryKey(root: 0, id: "b/c"), LibraryKey(root: 0, id: "b-c"), LibraryKey(root: 0, id: "b")]
        XCTAssertEqual(keys.sorted().map(\.id), ["b", "b-c", "b/c", "a"])
        XCTAssertEqual(LibraryKey.folder(of: "2024/iceland/glacier"), "2024/iceland")
        XCTAssertEqual(LibraryKey.folder(of: "top"), "")
    }
}
