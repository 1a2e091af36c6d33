import Foundation
import XCTest

/// `tileserver build` as a process: output layout, progress lines off a terminal, --quiet, bad options.
final class BuildCommandTests: XCTestCase {
    func testBuildsADeepZoomPyramidWithPlainProgressLines() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cli-build-\(UUID().uuidString)")
        let result = try CLI.run(["build", CLI.fixtures.appendingPathComponent("baseline.jpg").path, "--out", out.path])
        XCTAssertEqual(result.status, 0, result.err)
        let lines = result.err.split(separator: "\n")
        XCTAssertTrue(lines.contains("build: 100% (17 of 17 tiles, 0 s)") || lines.contains { $0.hasPrefix("build: 100% (17 of 17 tiles") }, result.err)
        XCTAssertFalse(result.err.contains("\r"), "no bar redraws when standard error is not a terminal")
        XCTAssertTrue(lines.last?.hasPrefix("wrote 17 tiles of baseline to ") == true, result.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("baseline.dzi").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("baseline_files/10/2_1.jpg").path))
    }

    func testQuietXYZBuildPrintsNothing() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cli-xyz-\(UUID().uuidString)")
        let result = try CLI.run(["build", CLI.fixtures.appendingPathComponent("rgb.png").path, "--out", out.path,
                                  "--layout", "xyz", "--format", "png", "--tile-size", "128", "--quiet"])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertEqual(result.err, "")
        XCTAssertEqual(result.out, "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("10/5/3.png").path))
    }

    func testBadOptionsAndFilesAreOneLineErrors() throws {
        let badSize = try CLI.run(["build", CLI.fixtures.appendingPathComponent("rgb.png").path, "--out", "/tmp/x", "--tile-size", "3"])
        XCTAssertNotEqual(badSize.status, 0)
        XCTAssertTrue(badSize.err.contains("--tile-size must be from 16 to 4096"), badSize.err)
        let missing = try CLI.run(["build", "/nonexistent.jpg", "--out", "/tmp/x"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.err, "tileserver: /nonexistent.jpg: cannot open (open(/nonexistent.jpg): No such file or directory)\n")
    }
}
