import XCTest
@testable import Library

/// A rule kept is the one worked out for that file under that policy generation, and no other.
final class ImageRulesTests: XCTestCase {
    func testAKeptRuleHoldsForItsFileAndGenerationOnly() {
        let rules = ImageRules()
        let staff = FolderRule(view: .hidden, groups: [["staff"]])
        rules.keep(staff, for: "a", path: "/p/a.jpg", generation: 3)
        XCTAssertEqual(rules.kept("a", path: "/p/a.jpg", generation: 3), staff)
        XCTAssertNil(rules.kept("a", path: "/p/a.jpg", generation: 4), "another policy")
        XCTAssertNil(rules.kept("a", path: "/elsewhere/a.jpg", generation: 3), "another file with the id")
        rules.forget(["a"])
        XCTAssertNil(rules.kept("a", path: "/p/a.jpg", generation: 3))
        rules.roots = [0: "/real/photos"]
        XCTAssertEqual(rules.roots, [0: "/real/photos"])
    }
}
