import Foundation
import XCTest
@testable import Library
@testable import Pyramid
import ImageTestSupport

/// Search and sorting on real files: JPEGs carrying XMP as a photo editor writes it, indexed by a pass, found
/// by their words, ordered by date taken and by name, and found again after a file is rewritten in place.
final class SearchIndexTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/trip", withIntermediateDirectories: true)
        try write("trip/b.jpg", xmp: Self.xmp(keywords: ["glacier", "Ice"], creator: "Ana Ruiz", taken: "2021-05-05T10:00:00"))
        try write("trip/a.jpg", xmp: Self.xmp(keywords: ["forest"], creator: "Bo Lind", taken: "2023-01-01T08:00:00"))
        try write("trip/cascade.jpg", xmp: nil)
        try write("top.jpg", xmp: Self.xmp(keywords: ["Glacier bay"], creator: "Bo Lind", taken: "2019-12-31T23:00:00"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: root) }

    static func xmp(keywords: [String], creator: String, taken: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:DateTimeOriginal="\(taken)">
        <dc:subject><rdf:Bag>\(keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined())</rdf:Bag></dc:subject>
        <dc:creator><rdf:Seq><rdf:li>\(creator)</rdf:li></rdf:Seq></dc:creator>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    /// The baseline fixture with an XMP segment (APP1) after its SOI.
    private func write(_ name: String, xmp: String?) throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("baseline.jpg")))
        var out = Data(jpeg.prefix(2))
        if let xmp {
            let payload = Data("http://ns.adobe.com/xap/1.0/\0".utf8) + Data(xmp.utf8)
            out += Data([0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]) + payload
        }
        out += jpeg.dropFirst(2)
        try out.write(to: URL(fileURLWithPath: root + "/" + name))
    }

    private func indexed() -> ImageLibrary {
        let library = ImageLibrary(options: TileOptions())
        LibraryRoots([.folder(root)]).scanAll(into: library)
        library.search.pass(library)
        return library
    }

    private func ids(_ library: ImageLibrary, q: String? = nil, sort: String? = nil, order: String? = nil, folder: String? = nil) throws -> [String] {
        try XCTUnwrap(library.search(try SearchQuery(q: q, sort: sort, order: order), folder: folder, admits: { _ in .shown })).map(\.id)
    }

    func testWordsFindKeywordsAndCreatorsCaseIgnoredAllWordsNeeded() throws {
        let library = indexed()
        XCTAssertEqual(library.search.status.indexed, 4)
        XCTAssertEqual(try ids(library, q: "GLACIER"), ["trip/b", "top"], "by name (b, top) unless asked otherwise")
        XCTAssertEqual(try ids(library, q: "bo lind"), ["trip/a", "top"])
        XCTAssertEqual(try ids(library, q: "glacier bo"), ["top"])
        XCTAssertEqual(try ids(library, q: "glacier", folder: "trip"), ["trip/b"])
        XCTAssertEqual(try ids(library, q: "cascade"), ["trip/cascade"], "the name is searched too")
        XCTAssertEqual(try ids(library, q: "nothing"), [])
        XCTAssertEqual(try ids(library, q: "glacier") { $0 != "top" ? .shown : .left }, ["trip/b"], "what the asker may not see is not found")
        XCTAssertNil(library.search(try SearchQuery(q: "x", sort: nil, order: nil), folder: "nope", admits: { _ in .shown }))
    }

    func testSortsByDateTakenThenNameAndByName() throws {
        let library = indexed()
        XCTAssertEqual(try ids(library, sort: "taken"), ["top", "trip/b", "trip/a", "trip/cascade"], "undated last")
        XCTAssertEqual(try ids(library, sort: "taken", order: "desc"), ["trip/a", "trip/b", "top", "trip/cascade"])
        XCTAssertEqual(try ids(library, sort: "name", folder: "trip"), ["trip/a", "trip/b", "trip/cascade"])
        XCTAssertEqual(try ids(library, sort: "taken", folder: "trip"), ["trip/b", "trip/a", "trip/cascade"], "a folder's own images")
        // A locked image is listed by its name alone: its date does not place it (issue 58, sort=taken).
        let locked = try XCTUnwrap(library.search(try SearchQuery(q: nil, sort: "taken", order: nil), folder: nil,
                                                  admits: { $0 == "trip/b" ? .byName : .shown })).map(\.id)
        XCTAssertEqual(locked, ["top", "trip/a", "trip/cascade", "trip/b"])
        XCTAssertThrowsError(try SearchQuery(q: nil, sort: "size", order: nil))
        XCTAssertThrowsError(try SearchQuery(q: nil, sort: nil, order: "up"))
    }

    func testARewrittenFileIsReadAgainAndARemovedOneForgotten() throws {
        let library = indexed()
        try write("trip/cascade.jpg", xmp: Self.xmp(keywords: ["glacier"], creator: "Cy", taken: "2000-01-01T00:00:00"))
        // A different size: the stamp moved even within one clock tick.
        library.search.pass(library)
        XCTAssertEqual(try ids(library, q: "glacier"), ["trip/b", "trip/cascade", "top"])
        try FileManager.default.removeItem(atPath: root + "/top.jpg")
        LibraryRoots([.folder(root)]).scanAll(into: library)
        library.search.pass(library)
        XCTAssertEqual(try ids(library, q: "glacier"), ["trip/b", "trip/cascade"])
        XCTAssertEqual(library.search.status.total, 3)
    }

    /// Titles name and sort photos (`--names title`); an image known by its name alone (locked to the one asking)
    /// is not placed by its title, which is not theirs to learn, but after the rest by file name.
    func testTitlesSortPhotosButNotThoseKnownByNameAlone() throws {
        try FileManager.default.createDirectory(atPath: root + "/titled", withIntermediateDirectories: true)
        func titled(_ title: String) -> String {
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">\(title)</rdf:li></rdf:Alt></dc:title>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        }
        try write("titled/z.jpg", xmp: titled("Aardvark"))
        try write("titled/a.jpg", xmp: titled("  Moose\nsecond line"))
        try write("titled/b.jpg", xmp: titled("Zebra"))
        try write("titled/m.jpg", xmp: nil)
        let library = indexed()
        XCTAssertEqual(library.shownName(of: "titled/a"), "Moose", "one line, trimmed")
        XCTAssertEqual(library.shownName(of: "titled/m"), "m")
        XCTAssertEqual(try ids(library, sort: "name", folder: "titled"), ["titled/z", "titled/m", "titled/a", "titled/b"])
        XCTAssertEqual(try ids(library, sort: "name", order: "desc", folder: "titled"), ["titled/b", "titled/a", "titled/m", "titled/z"])
        let byName = try XCTUnwrap(library.search(try SearchQuery(q: nil, sort: "name", order: nil), folder: "titled",
                                                  admits: { $0 == "titled/a" ? .byName : .shown })).map(\.id)
        XCTAssertEqual(byName, ["titled/z", "titled/m", "titled/b", "titled/a"])

        let files = ImageLibrary(options: TileOptions(), titlesAsNames: false)
        LibraryRoots([.folder(root)]).scanAll(into: files)
        files.search.pass(files)
        XCTAssertEqual(files.shownName(of: "titled/a"), "a")
        XCTAssertEqual(try ids(files, sort: "name", folder: "titled"), ["titled/a", "titled/b", "titled/m", "titled/z"])
    }

}

private extension SearchIndexTests {
    func ids(_ library: ImageLibrary, q: String, admits: @escaping (String) -> SearchAdmission) throws -> [String] {
        try XCTUnwrap(library.search(try SearchQuery(q: q, sort: nil, order: nil), folder: nil, admits: admits)).map(\.id)
    }
}
