import Foundation
import XCTest
import ImageCodecs

/// Test images made by scripts/make-fixtures.sh (synthetic and seeded), with libvips' reference decodes.
package enum Fixtures {
    package static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    package static let directory: URL = {
        let dir = ProcessInfo.processInfo.environment["TILESERVER_FIXTURES"].map { URL(fileURLWithPath: $0) }
            ?? repoRoot.appendingPathComponent(".build-fixtures")
        if !FileManager.default.fileExists(atPath: dir.appendingPathComponent(".complete-v12").path) {
            let script = Process()
            script.executableURL = URL(fileURLWithPath: "/bin/bash")
            script.arguments = [repoRoot.appendingPathComponent("scripts/make-fixtures.sh").path, dir.path]
            try? script.run()
            script.waitUntilExit()
        }
        return dir
    }()

    package static func path(_ name: String) -> String {
        directory.appendingPathComponent("formats").appendingPathComponent(name).path
    }

    package static var allFormats: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("formats").path))?.sorted() ?? []
    }

    /// libvips' decode of `name`, upright, 8-bit RGB or RGBA.
    package static func reference(_ name: String) throws -> PixelBuffer {
        let stem = (name as NSString).deletingPathExtension
        let ref = directory.appendingPathComponent("reference")
        let header = try String(contentsOf: ref.appendingPathComponent(stem + ".txt"), encoding: .utf8)
            .split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let bytes = try [UInt8](Data(contentsOf: ref.appendingPathComponent(stem + ".raw")))
        guard header.count == 3, bytes.count == header[0] * header[1] * header[2] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: stem + ".raw"])
        }
        return PixelBuffer(width: header[0], height: header[1], channels: header[2], bytes: bytes)
    }

    package static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// Writes `bytes` to a fresh temporary file and returns its path.
    package static func temporary(_ bytes: [UInt8], name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tileserver-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// `temporary`, last written a minute ago: a file that is no longer being written (a JPEG cut short is
    /// taken for one only then, `CutShort.settled`).
    package static func settled(_ bytes: [UInt8], name: String) throws -> String {
        let path = try temporary(bytes, name: name)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        return path
    }
}
