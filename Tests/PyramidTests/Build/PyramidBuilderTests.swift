import Foundation
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport

/// `PyramidBuilder` against `vips dzsave` on the same images: same files, same tile sizes, close pixels.
final class PyramidBuilderTests: XCTestCase {
    private func scratch(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("build-\(name)-\(UUID().uuidString)")
    }

    private func decode(_ url: URL) throws -> PixelBuffer {
        try ImageOpener.open(url.path).decodeAll()
    }

    /// Pixels are compared as PNG on both sides, so only the resampling differs (vips turns chroma
    /// subsampling off at high JPEG qualities, which would dominate on the smallest tiles).
    private func compareWithVips(_ fixture: String, overlap: Int, minimumPSNR: Double, format: ImageFormat = .png) throws {
        let name = (fixture as NSString).deletingPathExtension
        let vips = try Vips.dzsave(Fixtures.path(fixture), name: name, overlap: overlap, suffix: "." + format.fileExtension)
        let ours = scratch(name)
        let builder = PyramidBuilder(source: try ImageOpener.open(Fixtures.path(fixture)),
                                     options: BuildOptions(overlap: overlap, format: format, quality: 90))
        try builder.build(into: ours.path, name: name)
        let theirFiles = Vips.files(under: vips).filter { !$0.hasSuffix("vips-properties.xml") }
        let ourFiles = Vips.files(under: ours)
        XCTAssertEqual(ourFiles, theirFiles, "\(fixture): file list differs from vips dzsave")
        XCTAssertEqual(ourFiles.count, builder.geometry.totalTiles + 1)
        XCTAssertEqual(try String(contentsOf: ours.appendingPathComponent(name + ".dzi"), encoding: .utf8),
                       try String(contentsOf: vips.appendingPathComponent(name + ".dzi"), encoding: .utf8))
        for file in ourFiles where !file.hasSuffix(".dzi") {
            let a = try decode(ours.appendingPathComponent(file)), b = try decode(vips.appendingPathComponent(file))
            XCTAssertEqual(a.width, b.width, "\(fixture) \(file) width")
            XCTAssertEqual(a.height, b.height, "\(fixture) \(file) height")
            if a.width == b.width, a.height == b.height {
                let psnr = PixelCompare.psnr(a, b)
                XCTAssertGreaterThanOrEqual(psnr, minimumPSNR, "\(fixture) \(file)")
            }
        }
    }

    func testSameFilesAndSizesAsVipsDzsave() throws {
        try compareWithVips("baseline.jpg", overlap: 0, minimumPSNR: 32)
        try compareWithVips("wide-9024x3.jpg", overlap: 0, minimumPSNR: 30)
        try compareWithVips("rgb.png", overlap: 1, minimumPSNR: 32)
        try compareWithVips("q100-444.jpg", overlap: 0, minimumPSNR: 25, format: .jpeg) // 4:2:0 against vips' 4:4:4
    }

    func testXYZLayoutAndPNGTiles() throws {
        let out = scratch("xyz")
        let builder = PyramidBuilder(source: try ImageOpener.open(Fixtures.path("rgba.png")),
                                     options: BuildOptions(layout: .xyz, format: .png))
        try builder.build(into: out.path, name: "rgba")
        let files = Vips.files(under: out)
        XCTAssertEqual(files.count, builder.geometry.totalTiles)
        XCTAssertTrue(files.contains("10/2/1.png"))
        XCTAssertTrue(files.contains("0/0/0.png"))
        let corner = try decode(out.appendingPathComponent("10/2/1.png"))
        XCTAssertEqual(corner.width, 701 - 512)
        XCTAssertEqual(corner.height, 453 - 256)
        XCTAssertEqual(corner.channels, 4)
        let full = try ImageOpener.open(Fixtures.path("rgba.png")).decodeAll()
        XCTAssertEqual(corner, full.cropped(to: PixelRect(x: 512, y: 256, width: 189, height: 197)), "full-resolution PNG tiles are exact")
    }

    func testFailedBuildLeavesNothingBehind() throws {
        let bytes = try Fixtures.bytes("baseline.jpg")
        // Cut in its first rows (a later cut is the image of its rows, `CutShort`, which `build` refuses up front).
        let scan = try XCTUnwrap(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let broken = try Fixtures.temporary(Array(bytes.prefix(scan + 200)), name: "broken.jpg")
        let out = scratch("broken")
        let builder = PyramidBuilder(source: try ImageOpener.open(broken), options: BuildOptions())
        XCTAssertThrowsError(try builder.build(into: out.path, name: "broken")) { error in
            XCTAssertTrue("\(error)".contains("truncated file"), "\(error)")
        }
        XCTAssertEqual(Vips.files(under: out), [], "no tiles, no .dzi, no staging directory")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [], [])
    }

    func testRebuildReplacesTheEarlierPyramid() throws {
        let out = scratch("again")
        for fixture in ["baseline.jpg", "gray.jpg"] {
            try PyramidBuilder(source: try ImageOpener.open(Fixtures.path(fixture)), options: BuildOptions())
                .build(into: out.path, name: "photo")
        }
        let tile = try decode(out.appendingPathComponent("photo_files/10/0/0_0.jpg".replacingOccurrences(of: "/0/0_0", with: "/0_0")))
        let grayish = stride(from: 0, to: tile.bytes.count, by: 3).allSatisfy { abs(Int(tile.bytes[$0]) - Int(tile.bytes[$0 + 1])) <= 2 }
        XCTAssertTrue(grayish, "the second build's tiles replaced the first's")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["photo.dzi", "photo_files"])
    }

    /// What a `kill -9` mid-build leaves (a staging directory, an output moved aside) is removed by the next
    /// build when its PID is gone; a live build's staging directory is left alone.
    func testStaleStagingOfDeadBuildsIsRemovedAndLiveOnesKept() throws {
        let out = scratch("stale")
        let dead = try Self.deadPID(), live = getppid()
        let fm = FileManager.default
        let stale = [".photo.building-\(dead)", ".other.building-\(dead)", "photo_files.old-\(dead)"]
        let kept = [".photo.building-\(live)", "notes.building-\(dead)", ".photo.building-12ab"]
        for name in stale + kept {
            try fm.createDirectory(atPath: out.path + "/" + name + "/photo_files/9", withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: out.path + "/" + name + "/photo_files/9/0_0.jpg"))
        }
        try PyramidBuilder(source: try ImageOpener.open(Fixtures.path("baseline.jpg")), options: BuildOptions())
            .build(into: out.path, name: "photo")
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: out.path).sorted(), (["photo.dzi", "photo_files"] + kept).sorted())
    }

    /// A PID that ran and has exited (and was reaped).
    static func deadPID() throws -> pid_t {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let pid = process.processIdentifier
        XCTAssertEqual(kill(pid, 0), -1)
        return pid
    }
}
