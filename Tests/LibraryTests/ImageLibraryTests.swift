import Foundation
import POSIXSupport
import XCTest
@testable import Library
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport

/// The library on real folders: the scanner's walk, then `apply` as the watcher drives it.
final class ImageLibraryTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("library-\(getpid())-\(UUID().uuidString)").path
        for folder in ["2024/iceland", "2024/rome", "My Trip", ".hidden"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for (file, fixture) in [("2024/iceland/glacier.jpg", "baseline.jpg"), ("2024/iceland/glacier.png", "rgb.png"),
                                ("2024/rome/forum.jpg", "gray.jpg"), ("My Trip/a b.jpg", "baseline.jpg"),
                                (".hidden/secret.jpg", "baseline.jpg"), ("top.jpg", "baseline.jpg")] {
            try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: root + "/" + file)
        }
        try "not an image".write(toFile: root + "/notes.txt", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/2024/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: root + "/linked", withDestinationPath: root + "/2024/rome")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func scanned() -> (ImageLibrary, LibraryRoots) {
        let library = ImageLibrary(options: TileOptions())
        let roots = LibraryRoots([.folder(root)])
        roots.scanAll(into: library)
        return (library, roots)
    }

    func testWalkIsRecursiveSkipsHiddenAndNeverLoops() {
        let (library, _) = scanned()
        // "linked" is the rome folder again: listed once, under the path met first ("2024/rome" sorts before it).
        XCTAssertEqual(library.members().map(\.id), ["2024/iceland/glacier", "2024/iceland/glacier.png", "2024/rome/forum", "my-trip/a-b", "top"])
        XCTAssertEqual(library.image("2024/rome/forum")?.path, root + "/2024/rome/forum.jpg")
    }

    func testIdsOfTheEarlierRuleNameTheirImagesToday() {
        let (library, _) = scanned()
        XCTAssertEqual(library.renamedID("My-Trip/a-b"), "my-trip/a-b")
        XCTAssertNil(library.renamedID("top"), "an id the rules agree on is no rename")
        XCTAssertNil(library.renamedID("My-Trip/nothing"))
    }

    func testFolderPagesListImagesAndSubFoldersWithCounts() throws {
        let (library, _) = scanned()
        let top = try XCTUnwrap(library.page(folder: "", limit: 10))
        XCTAssertEqual(top.images.map(\.id), ["top"])
        XCTAssertEqual(top.folders.map(\.path), ["2024", "my-trip"])
        XCTAssertEqual(top.folders.map(\.count), [3, 1])
        let iceland = try XCTUnwrap(library.page(folder: "2024/iceland", limit: 10))
        XCTAssertEqual(iceland.images.map(\.id), ["2024/iceland/glacier", "2024/iceland/glacier.png"])
        XCTAssertNil(library.page(folder: "nowhere", limit: 10))
    }

    func testPagingVisitsEveryImageOnceInOrderAndSurvivesARemovedCursor() throws {
        let (library, roots) = scanned()
        var seen: [String] = [], after: LibraryKey?
        repeat {
            let page = try XCTUnwrap(library.page(after: after, limit: 2))
            seen += page.images.map(\.id)
            after = page.next
        } while after != nil
        XCTAssertEqual(seen, library.members().map(\.id))
        let first = try XCTUnwrap(library.page(limit: 2))
        try FileManager.default.removeItem(atPath: root + "/2024/iceland/glacier.png")
        roots.scanAll(into: library)
        let second = try XCTUnwrap(library.page(after: first.next, limit: 10))
        XCTAssertEqual(second.images.map(\.id), ["2024/rome/forum", "my-trip/a-b", "top"])
    }

    func testApplyAddsRemovesAndReleasesWhatLeft() throws {
        let (library, _) = scanned()
        let released = Released()
        library.attach(released)
        let forum = try XCTUnwrap(library.image("2024/rome/forum"))
        let generation = library.generation
        let change = library.apply(root: 0, scope: .folder("2024/rome"), files: ["2024/rome/arch": root + "/x.jpg"])
        XCTAssertEqual(change.added, ["2024/rome/arch"])
        XCTAssertEqual(change.removed, ["2024/rome/forum"])
        XCTAssertEqual(released.ids.withLock { $0 }, [forum.id])
        XCTAssertNil(library.image("2024/rome/forum"))
        XCTAssertGreaterThan(library.generation, generation)
        // A folder scope leaves the rest alone; an empty subtree drops a whole branch and its counts.
        XCTAssertNotNil(library.image("2024/iceland/glacier"))
        library.apply(root: 0, scope: .subtree("2024"), files: [:])
        XCTAssertEqual(library.members().map(\.id), ["my-trip/a-b", "top"])
        XCTAssertEqual(library.page(folder: "", limit: 10)?.folders.map(\.path), ["my-trip"])
        XCTAssertNil(library.page(folder: "2024", limit: 10))
    }

    func testSummariesReadHeadersOnceAndSeeReplacements() throws {
        let (library, roots) = scanned()
        let before = try library.summary("top")
        XCTAssertEqual([before.width, before.height], [Int(try ImageOpener.open(Fixtures.path("baseline.jpg")).info.width),
                                                      Int(try ImageOpener.open(Fixtures.path("baseline.jpg")).info.height)])
        XCTAssertEqual(try library.summary("top"), before)
        try FileManager.default.removeItem(atPath: root + "/top.jpg")
        try FileManager.default.copyItem(atPath: Fixtures.path("rgb.png"), toPath: root + "/top.jpg")
        roots.scanAll(into: library)   // the same id and path: told to look again
        let after = try library.summary("top")
        XCTAssertNotEqual(after.version, before.version)
        XCTAssertEqual(after.kind, "png")
    }

    func testTheFallbackShowsOnlyWhileNothingElseDoes() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let fallback = try PyramidImage(id: "landscape", path: Fixtures.path("tiny-1x1.png"), options: TileOptions())
        let library = ImageLibrary(options: TileOptions(), fallback: fallback)
        let roots = LibraryRoots([.folder(empty)])
        roots.scanAll(into: library)
        XCTAssertEqual(library.members().map(\.id), ["landscape"])
        try FileManager.default.copyItem(atPath: Fixtures.path("gray.jpg"), toPath: empty + "/landscape.jpg")
        roots.scanAll(into: library)
        XCTAssertEqual(library.members().map(\.id), ["landscape"])
        XCTAssertEqual(library.image("landscape")?.path, empty + "/landscape.jpg")
        try FileManager.default.removeItem(atPath: empty + "/landscape.jpg")
        roots.scanAll(into: library)
        XCTAssertTrue(library.image("landscape") === fallback)
    }
}

/// A tile service's side of `ImageChanges` that notes what the library released.
private final class Released: ImageChanges {
    let ids = Locked<[String]>([])
    func imageMade(_ image: PyramidImage) {}
    func imageRemoved(_ image: PyramidImage) { ids.withLock { $0.append(image.id) } }
}
