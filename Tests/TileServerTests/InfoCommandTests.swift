import Foundation
import XCTest

/// `tileserver info` run as a real process on real files.
final class InfoCommandTests: XCTestCase {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `tileserver` binary next to this test bundle.
    static var binary: URL {
        var dir = Bundle(for: InfoCommandTests.self).bundleURL
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("tileserver").path) && dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        return dir.appendingPathComponent("tileserver")
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    private var fixtures: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["TILESERVER_FIXTURES"] ?? Self.repoRoot.appendingPathComponent(".build-fixtures").path)
            .appendingPathComponent("formats")
    }

    func testPrintsOneJSONObjectPerImage() throws {
        let result = try run(["info", fixtures.appendingPathComponent("orient-6.jpg").path, fixtures.appendingPathComponent("rgba.png").path])
        XCTAssertEqual(result.status, 0, result.err)
        let lines = result.out.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let jpeg = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        XCTAssertEqual(jpeg["format"] as? String, "jpeg")
        XCTAssertEqual(jpeg["width"] as? Int, 453, "upright width of a rotate-90 photo")
        XCTAssertEqual(jpeg["height"] as? Int, 701)
        XCTAssertEqual(jpeg["orientation"] as? Int, 6)
        XCTAssertEqual(jpeg["channels"] as? Int, 3)
        XCTAssertEqual(jpeg["progressive"] as? Bool, false)
        XCTAssertEqual(jpeg["maxLevel"] as? Int, 10)
        XCTAssertEqual(jpeg["levels"] as? Int, 11)
        let png = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as! [String: Any]
        XCTAssertEqual(png["format"] as? String, "png")
        XCTAssertEqual(png["channels"] as? Int, 4)
    }

    func testUnreadableFilesGiveOneLineAndNonZeroExit() throws {
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-photo-\(getpid()).jpg")
        try Data("just text".utf8).write(to: text)
        for path in [text.path, "/nonexistent.png", "/etc"] {
            let result = try run(["info", path])
            XCTAssertEqual(result.status, 1, path)
            XCTAssertEqual(result.out, "")
            XCTAssertEqual(result.err.split(separator: "\n").count, 1, result.err)
            XCTAssertTrue(result.err.hasPrefix("tileserver: \(path): "), result.err)
        }
    }
}
