import Foundation
import XCTest
@testable import POSIXSupport

/// The inotify wrapper on a real folder: a watch, the events a file and a sub-folder cause, and a removed watch.
final class InotifyTests: XCTestCase {
    private func events(_ inotify: Inotify, until done: ([Inotify.Event]) -> Bool) -> [Inotify.Event] {
        var seen: [Inotify.Event] = []
        let deadline = Date().addingTimeInterval(5)
        while !done(seen), Date() < deadline {
            if inotify.wait(seconds: 0.2) { seen += inotify.read() }
        }
        return seen
    }

    func testAFileAndAFolderInAWatchedFolderAreReportedByName() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inotify-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inotify = try Inotify()
        let watch = try inotify.watch(dir, for: [.created, .closedAfterWriting, .deleted, .onlyDirectory])
        XCTAssertFalse(inotify.wait(seconds: 0.05), "nothing happened yet")

        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/a.jpg"))
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: false)
        let seen = events(inotify) { seen in seen.contains { $0.name == "sub" } && seen.contains { $0.name == "a.jpg" && $0.events.contains(.closedAfterWriting) } }
        XCTAssertTrue(seen.allSatisfy { $0.watch == watch })
        XCTAssertTrue(seen.contains { $0.name == "a.jpg" && $0.events.contains(.created) && !$0.events.contains(.isDirectory) })
        XCTAssertTrue(seen.contains { $0.name == "a.jpg" && $0.events.contains(.closedAfterWriting) })
        XCTAssertTrue(seen.contains { $0.name == "sub" && $0.events.contains(.created) && $0.events.contains(.isDirectory) })

        // Removing the folder ends the watch with IN_IGNORED.
        try FileManager.default.removeItem(atPath: dir)
        let after = events(inotify) { $0.contains { $0.events.contains(.watchRemoved) } }
        XCTAssertTrue(after.contains { $0.watch == watch && $0.events.contains(.watchRemoved) })
    }

    func testWatchingAFileAsAFolderIsARefusalNamingThePath() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("inotify-file-\(getpid())").path
        try Data().write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let inotify = try Inotify()
        XCTAssertThrowsError(try inotify.watch(file, for: [.created, .onlyDirectory])) { error in
            XCTAssertEqual((error as? SyscallError)?.errno, ENOTDIR)
            XCTAssertTrue("\(error)".contains("inotify_add_watch(\(file))"), "\(error)")
        }
    }
}
