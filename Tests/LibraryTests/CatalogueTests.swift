import XCTest
@testable import Library

/// The catalogue alone: members in order, the folder tree's counts, names and covers, kept right through single
/// and bulk inserts and removals.
final class CatalogueTests: XCTestCase {
    private func member(_ id: String, root: Int = 0, path: String? = nil) -> Catalogue.Member {
        Catalogue.Member(key: LibraryKey(root: root, id: id), scanned: id, path: path ?? "/photos/" + id + ".jpg")
    }

    func testOrderFoldersAndCountsFollowInsertsAndRemovals() {
        let catalogue = Catalogue()
        catalogue.withLock { $0.insert([member("b/z"), member("a"), member("b/c/d", path: "/photos/B/Ç/d.jpg"), member("b/y")]) }
        XCTAssertEqual(catalogue.entries().map(\.id), ["a", "b/c/d", "b/y", "b/z"])
        catalogue.withLock { contents in
            XCTAssertEqual(contents.folders[""]?.count, 4)
            XCTAssertEqual(contents.folders["b"]?.count, 3)
            XCTAssertEqual(contents.folders["b"]?.children, ["b/c"])
            XCTAssertEqual(contents.folders["b"]?.images.map(\.id), ["b/y", "b/z"])
            XCTAssertEqual(contents.folderName("b/c"), "Ç", "the name on disk, from an image's path")
            XCTAssertEqual(contents.firstImage(below: "b"), "b/y")
            XCTAssertEqual(contents.firstImage(below: ""), "a")
        }
        let gone = catalogue.member("b/c/d")!
        catalogue.withLock { $0.remove(gone) }
        catalogue.withLock { contents in
            XCTAssertNil(contents.folders["b/c"], "an emptied folder goes")
            XCTAssertEqual(contents.folders["b"]?.children, [])
            XCTAssertEqual(contents.folders[""]?.count, 3)
        }
        XCTAssertNil(catalogue.member("b/c/d"))
    }

    func testABulkInsertSortsAsSingleInsertsDo() {
        let ids = (0 ..< 200).map { "f\($0 % 7)/image-\(String(format: "%03d", (($0 * 37) % 200)))" }
        let bulk = Catalogue(), single = Catalogue()
        bulk.withLock { $0.insert(ids.map { member($0) }) }
        for id in ids { single.withLock { $0.insert(member(id)) } }
        XCTAssertEqual(bulk.entries().map(\.id), ids.sorted())
        XCTAssertEqual(single.entries().map(\.id), ids.sorted())
        for folder in (0 ..< 7).map({ "f\($0)" }) {
            XCTAssertEqual(bulk.withLock { $0.folders[folder]?.images }, single.withLock { $0.folders[folder]?.images })
        }
    }

    func testRootsComeFirstInOrderAndUpperBoundFindsTheNextKey() {
        let keys = [LibraryKey(root: 0, id: "z"), LibraryKey(root: 1, id: "a"), LibraryKey(root: 1, id: "b")]
        XCTAssertEqual(keys, keys.sorted())
        XCTAssertEqual(Catalogue.upperBound(keys, LibraryKey(root: 0, id: "z")), 1)
        XCTAssertEqual(Catalogue.upperBound(keys, LibraryKey(root: 1, id: "a0")), 2)
        XCTAssertEqual(Catalogue.upperBound(keys, LibraryKey(root: 2, id: "")), 3)
    }

    func testImagesOfOneFolderWithOneNameShowTheirExtensions() {
        let catalogue = Catalogue()
        catalogue.withLock { $0.insert([member("a/img-0001", path: "/p/a/IMG_0001.jpg"), member("a/img-0001-2", path: "/p/a/IMG_0001.png"),
                                        member("b/img-0001", path: "/p/b/IMG_0001.png"), member("a/other", path: "/p/a/other.jpg")]) }
        XCTAssertEqual(catalogue.entries().map(\.name), ["IMG_0001.jpg", "IMG_0001.png", "other", "IMG_0001"])
        let twin = catalogue.member("a/img-0001-2")!
        catalogue.withLock { $0.remove(twin) }
        XCTAssertEqual(catalogue.entries().map(\.name), ["IMG_0001", "other", "IMG_0001"], "alone again, no extension")
    }
}
