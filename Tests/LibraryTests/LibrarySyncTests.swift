import Foundation
import POSIXSupport
import XCTest
@testable import Library
@testable import Pyramid
import ImageTestSupport

/// The library's rules for changes, driven as the watcher drives them (no inotify here: the calls are made by
/// hand), on a real folder.
final class LibrarySyncTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("baseline.jpg"), toPath: root + "/a/one.jpg")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func testChangesInAFolderAreAppliedAndFoldersComeAndGo() throws {
        let library = ImageLibrary(options: TileOptions())
        let roots = LibraryRoots([.folder(root)])
        let sync = LibrarySync(roots: roots, library: library, entered: roots.scanAll(into: library))
        XCTAssertEqual(Set(sync.folderPaths), [root, root + "/a"])
        XCTAssertEqual(library.members().map(\.id), ["a/one"])

        // A file being written is left out until it is finished.
        let copy = root + "/a/two.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: copy, contents: Data(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("baseline.jpg"))).prefix(100))))
        sync.fileCreated(copy)
        sync.folderChanged(root + "/a")
        _ = sync.step(rescanDue: false)
        XCTAssertEqual(library.members().map(\.id), ["a/one"], "still being written")
        sync.fileFinished(copy)
        XCTAssertTrue(sync.hasPendingChange)
        XCTAssertEqual(sync.step(rescanDue: false).change?.added, ["a/two"])

        // A new sub-folder is walked and reported for watching; a removed one is forgotten with its images.
        try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("gray.jpg"), toPath: root + "/a/b/three.jpg")
        sync.folderChanged(root + "/a")
        let added = sync.step(rescanDue: false)
        XCTAssertEqual(added.entered, [root + "/a/b"])
        XCTAssertEqual(library.members().map(\.id), ["a/b/three", "a/one", "a/two"])
        try FileManager.default.removeItem(atPath: root + "/a")
        sync.folderChanged(root + "/a")
        let removed = sync.step(rescanDue: false)
        XCTAssertEqual(Set(removed.forgotten), [root + "/a", root + "/a/b"])
        XCTAssertEqual(library.members().map(\.id), [])

        // Lost events: the next step rescans everything.
        try FileManager.default.createDirectory(atPath: root + "/c", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("gray.jpg"), toPath: root + "/c/four.jpg")
        sync.eventsLost()
        let rescanned = sync.step(rescanDue: false)
        XCTAssertNil(rescanned.change, "a full rescan")
        XCTAssertTrue(rescanned.entered.contains(root + "/c"))
        XCTAssertEqual(library.members().map(\.id), ["c/four"])
    }
}
