import Foundation
import XCTest

/// Runs the libvips command line (installed by scripts/test.sh) for reference outputs.
package enum Vips {
    package static func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vips"] + arguments
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "vips \(arguments.joined(separator: " ")): \(message)", file: file, line: line)
    }

    /// `vips dzsave` of `image` into a fresh directory; returns that directory.
    /// dzsave keeps the stored orientation, so the image is turned upright (`vips autorot`) first.
    package static func dzsave(_ image: String, name: String, overlap: Int = 0, suffix: String = ".jpg[Q=90]") throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vips-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let upright = dir.appendingPathComponent("upright.v").path
        try run(["autorot", image, upright])
        defer { try? FileManager.default.removeItem(atPath: upright) }
        try run(["dzsave", upright, dir.appendingPathComponent(name).path, "--tile-size", "256", "--overlap", "\(overlap)", "--suffix", suffix])
        return dir
    }

    /// Relative paths of the regular files under `dir`, sorted.
    package static func files(under dir: URL) -> [String] {
        let root = dir.standardizedFileURL.path
        let walker = FileManager.default.enumerator(atPath: root)
        var out: [String] = []
        while let item = walker?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + item, isDirectory: &isDir), !isDir.boolValue { out.append(item) }
        }
        return out.sorted()
    }
}
