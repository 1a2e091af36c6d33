import XCTest
@testable import Library

/// Old ids (ASCII only, case kept) to today's, for images and folders; a clash of old ids names the first image.
final class RenameMapTests: XCTestCase {
    func testOldIdsAndFoldersNameTodays() {
        let map = RenameMap([(id: "my-trip/a-b", path: "/p/My Trip/a b.jpg"),
                             (id: "été/plage", path: "/p/Été/Plage.jpg"),
                             (id: "été/plage-2", path: "/p/Été/plage.png"),
                             (id: "top", path: "/p/top.jpg")])
        XCTAssertEqual(map.id("My-Trip/a-b"), "my-trip/a-b")
        XCTAssertEqual(map.folder("My-Trip"), "my-trip")
        XCTAssertEqual(map.id("-t-/Plage"), "été/plage")
        XCTAssertEqual(map.id("-t-/plage"), "été/plage-2")
        XCTAssertNil(map.id("top"), "an id both rules agree on is no rename")
        XCTAssertNil(map.folder("top"))
        XCTAssertNil(map.id("nothing"))
    }
}
