import Foundation
import TestSupport

/// Runs the built `tileserver` binary as a real process.
enum CLI {

    /// The `tileserver` binary next to this test bundle.
    static var binary: URL {
        var dir = Bundle(for: BundleMarker.self).bundleURL
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("tileserver").path) && dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        return dir.appendingPathComponent("tileserver")
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
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

    static var fixtures: URL { TestPaths.fixtures }

}

private final class BundleMarker {}
