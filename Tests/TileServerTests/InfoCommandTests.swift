import Foundation
import XCTest

/// `tileserver info` run as a real process on real files.
final class InfoCommandTests: XCTestCase {
    func testPrintsOneJSONObjectPerImage() throws {
        let result = try CLI.run(["info", CLI.fixtures.appendingPathComponent("orient-6.jpg").path, CLI.fixtures.appendingPathComponent("rgba.png").path])
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
            let result = try CLI.run(["info", path])
            XCTAssertEqual(result.status, 1, path)
            XCTAssertEqual(result.out, "")
            XCTAssertEqual(result.err.split(separator: "\n").count, 1, result.err)
            XCTAssertTrue(result.err.hasPrefix("tileserver: \(path): "), result.err)
        }
    }
}
