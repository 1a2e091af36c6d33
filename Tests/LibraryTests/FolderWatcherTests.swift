import Foundation
import Logging
import POSIXSupport
import XCTest
@testable import Library
@testable import Pyramid
import ImageTestSupport

/// The loader and the watcher as `serve` runs them, on a real folder: what they list at start, and a file copied
/// in and removed afterwards, seen through inotify and, without it, through rescans.
final class FolderWatcherTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/trip", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("baseline.jpg"), toPath: root + "/trip/first.jpg")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func waitFor(_ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertTrue(condition(), what)
    }

    private func watched(inotify: Bool, rescanInterval: Double) throws -> ImageLibrary {
        let loaded = try LibraryLoader.load([root], options: TileOptions(), logger: Logger(label: "test"))
        XCTAssertEqual(loaded.library.members().map(\.id), ["trip/first"])
        let sync = LibrarySync(roots: loaded.roots, library: loaded.library, entered: loaded.folders, writeQuiet: 0.2)
        FolderWatcher(sync: sync, library: loaded.library, logger: Logger(label: "test"), inotify: inotify,
                      rescanInterval: rescanInterval).start()
        return loaded.library
    }

    private func copyInAndRemove(_ library: ImageLibrary) throws {
        try FileManager.default.copyItem(atPath: Fixtures.path("baseline.jpg"), toPath: root + "/trip/.second.jpg.part")
        try FileManager.default.moveItem(atPath: root + "/trip/.second.jpg.part", toPath: root + "/trip/second.jpg")
        waitFor("a file moved into a watched folder is listed") { library.members().map(\.id) == ["trip/first", "trip/second"] }
        XCTAssertEqual(try library.image("trip/second")?.current().geometry.width, 701)
        try FileManager.default.removeItem(atPath: root + "/trip/first.jpg")
        waitFor("a removed file leaves the listing") { library.members().map(\.id) == ["trip/second"] }
    }

    func testInotifySeesFilesArriveAndLeave() throws {
        try copyInAndRemove(watched(inotify: true, rescanInterval: 0))
    }

    func testRescansAloneSeeFilesArriveAndLeave() throws {
        try copyInAndRemove(watched(inotify: false, rescanInterval: 0.2))
    }

    func testAnEmptyFolderServesTheLandscapeUntilAnImageArrives() throws {
        try FileManager.default.removeItem(atPath: root + "/trip/first.jpg")
        let loaded = try LibraryLoader.load([root], options: TileOptions(), logger: Logger(label: "test"))
        XCTAssertEqual(loaded.library.members().map(\.id), ["landscape"])
        let nothing = try LibraryLoader.load([], options: TileOptions(), logger: Logger(label: "test"))
        XCTAssertEqual(nothing.library.members().map(\.id), ["landscape"])
        XCTAssertEqual(try nothing.library.image("landscape")?.current().geometry.width, 16_384)
    }

    func testPathsThatHoldNoReadableImageAreRefused() throws {
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: root + "/broken.jpg"))
        XCTAssertThrowsError(try LibraryLoader.load([root + "/broken.jpg"], options: TileOptions(), logger: Logger(label: "test"))) {
            XCTAssertTrue("\($0)".contains("no readable"), "\($0)")
        }
        XCTAssertThrowsError(try LibraryLoader.load([root + "/nowhere"], options: TileOptions(), logger: Logger(label: "test")))
    }
}
