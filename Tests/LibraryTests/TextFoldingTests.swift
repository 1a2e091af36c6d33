import XCTest
@testable import Library

/// Search and the name order forgive case and accents, and count digits as numbers.
final class TextFoldingTests: XCTestCase {
    func testAccentsCaseAndTwoLetterLettersFold() {
        XCTAssertEqual(TextFolding.fold("Zoë Müller"), "zoe muller")
        XCTAssertEqual(TextFolding.fold("Łódź"), "lodz")
        XCTAssertEqual(TextFolding.fold("Straße"), "strasse")
        XCTAssertEqual(TextFolding.fold("Œuvre Æther Ørsted Þór"), "oeuvre aether orsted thor")
        XCTAssertEqual(TextFolding.fold("Été à Paris"), "ete a paris")
        XCTAssertEqual(TextFolding.fold("e\u{301}te\u{301}"), "ete", "decomposed, as macOS writes names")
        XCTAssertEqual(TextFolding.fold("Москва"), "москва", "other scripts are lower-cased only")
        XCTAssertEqual(TextFolding.fold("IMG_0005"), "img_0005")
    }

    func testNamesOrderFoldedWithDigitsAsNumbers() {
        let names = ["img_10", "img_2", "portrait — lodz", "ete a paris (1)", "img_02", "img_1", "zebra", "ete a paris (10)", "ete a paris (9)"]
        XCTAssertEqual(names.sorted(by: NameOrder.precedes),
                       ["ete a paris (1)", "ete a paris (9)", "ete a paris (10)", "img_1", "img_02", "img_2", "img_10", "portrait — lodz", "zebra"])
        XCTAssertFalse(NameOrder.precedes("a", "a"))
        XCTAssertTrue(NameOrder.precedes("a", "a1"))
        XCTAssertTrue(NameOrder.precedes("x9", "x10"))
        XCTAssertTrue(NameOrder.precedes(String(repeating: "9", count: 40), String(repeating: "1", count: 41)), "no overflow")
    }

    func testAQueryFoldsItsWords() throws {
        XCTAssertEqual(try SearchQuery(q: "ZOË  Łódź", sort: nil, order: nil).words, ["zoe", "lodz"])
    }
}
