import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// The decoder fuzzers' seeds and findings (Fuzz/Corpus, Fuzz/Regressions), replayed the way the fuzz targets
/// feed them: through `ImageSource` from a file (header, a region at full size, one at 1/8) and through
/// `ImageDecoder` from memory. Each gives pixels or a typed error; run under `--sanitize=address` (scripts/test.sh
/// does) they also prove no leak or overflow, e.g. the row pointers an Adam7 PNG leaked when it failed mid-image.
final class FuzzRegressionTests: XCTestCase {
    private let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Fuzz").standardized

    private func inputs(_ target: String) throws -> [URL] {
        try ["Corpus", "Regressions"].flatMap { folder -> [URL] in
            let dir = fuzz.appendingPathComponent(folder).appendingPathComponent(target)
            return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix(".") }.map { dir.appendingPathComponent($0) }
        }
    }

    private func replay(_ url: URL) -> String {
        let limits = ImageLimits(maxPixels: 4_000_000, maxPyramidPixels: 4_000_000, maxDecoderMemory: 64 << 20)
        var outcome = "ok"
        do {
            let source = try ImageOpener.open(url.path, limits: limits)
            let w = source.info.width, h = source.info.height
            _ = try source.decode(PixelRect(x: w / 3, y: h / 3, width: max(1, w / 2), height: max(1, h / 2)))
            _ = try source.decode(PixelRect(x: 0, y: 0, width: max(1, w / 8), height: max(1, h / 8)), shrink: 8)
        } catch {
            XCTAssertTrue(error is ImageSourceError, "\(url.lastPathComponent): \(error)")
            outcome = "error"
        }
        // As the fuzzer drives it: every baseline JPEG entered through its entry index whatever its size, the scan
        // first (a 1/8 decode), then a region through an extract.
        do {
            let entered = try ImageOpener.open(url.path, limits: ImageLimits(maxPixels: 4_000_000, maxPyramidPixels: 4_000_000,
                                                                             maxDecoderMemory: 64 << 20, entryIndexPixels: 0))
            let w = entered.info.width, h = entered.info.height
            _ = try? entered.decode(PixelRect(x: 0, y: 0, width: (w + 7) / 8, height: (h + 7) / 8), shrink: 8)
            _ = try entered.decode(PixelRect(x: w / 3, y: h / 3, width: max(1, w / 2), height: max(1, h / 2)))
        } catch {
            XCTAssertTrue(error is ImageSourceError, "\(url.lastPathComponent): \(error)")
        }
        do { _ = try ImageDecoder.decode(Array(try Data(contentsOf: url))) } catch {
            XCTAssertTrue(error is ImageSourceError, "\(url.lastPathComponent): \(error)")
        }
        return outcome
    }

    func testJPEGInputs() throws {
        let files = try inputs("jpeg")
        XCTAssertGreaterThanOrEqual(files.count, 8)
        for file in files where file.deletingLastPathComponent().lastPathComponent == "jpeg" && file.path.contains("/Corpus/") {
            XCTAssertEqual(replay(file), "ok", "seed \(file.lastPathComponent) decodes")
        }
        for file in files { _ = replay(file) }
    }

    func testPNGInputs() throws {
        let files = try inputs("png")
        XCTAssertTrue(files.contains { $0.lastPathComponent.hasPrefix("leak-") }, "the Adam7 row-pointer leak input is kept")
        for file in files where file.path.contains("/Corpus/") {
            XCTAssertEqual(replay(file), "ok", "seed \(file.lastPathComponent) decodes")
        }
        for file in files { _ = replay(file) }
    }

    func testTIFFAndJPEG2000Inputs() throws {
        for target in ["tiff", "jp2"] {
            let files = try inputs(target)
            XCTAssertGreaterThanOrEqual(files.count, 3, target)
            for file in files where file.path.contains("/Corpus/") {
                XCTAssertEqual(replay(file), "ok", "seed \(file.lastPathComponent) decodes")
            }
            for file in files { _ = replay(file) }
        }
    }

    /// WebP, HEIC and AVIF: every seed decodes; a grid or an overlay claiming more than its image (libheif 1.15
    /// allocates what the descriptor says: gigabytes, then a crash) is an error before libheif decodes.
    func testPhotoFormatInputs() throws {
        for target in ["webp", "heic", "avif"] {
            let files = try inputs(target)
            XCTAssertGreaterThanOrEqual(files.count, 2, target)
            for file in files where file.path.contains("/Corpus/") {
                XCTAssertEqual(replay(file), "ok", "seed \(file.lastPathComponent) decodes")
            }
            for file in files { _ = replay(file) }
        }
        for name in ["grid-output-60000x60000.heic", "overlay-canvas-64451x8209.heic"] {
            let file = fuzz.appendingPathComponent("Regressions/heic/\(name)")
            XCTAssertThrowsError(try ImageOpener.open(file.path)) { error in
                XCTAssertTrue("\(error)".contains("claims"), "\(name): \(error)")
            }
        }
    }
}
