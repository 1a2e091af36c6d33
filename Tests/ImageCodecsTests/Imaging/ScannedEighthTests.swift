import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// The 1/8 decode the entry index's scan makes on its way (`JPEGEighthReader`) is libjpeg's decode at 1/8, to the
/// bit, for every sampling the scan decodes, and leaves the whole file indexed.
final class ScannedEighthTests: XCTestCase {
    private let indexEverything = ImageLimits(entryIndexPixels: 0)

    /// libjpeg's decode of `name` at 1/8 (the file is too small for an index under the default limits), and the
    /// scan's decode of a fresh copy (so its index is new); whether the scan made it.
    private func both(_ name: String, bytes: [UInt8]? = nil) throws -> (libjpeg: Result<PixelBuffer, any Error>,
                                                                         scan: Result<PixelBuffer, any Error>, scanned: Bool) {
        let data = try bytes ?? Fixtures.bytes(name)
        let plain = try Fixtures.temporary(data, name: "plain-\(name)")
        let fresh = try Fixtures.temporary(data, name: "scanned-\(UUID().uuidString)-\(name)")
        let libjpeg = Result { try ImageOpener.open(plain).decodeAll(shrink: 8) }
        let before = indexEverything.indexes.statistics().eighthsScanned
        let scan = Result { try ImageOpener.open(fresh, limits: indexEverything).decodeAll(shrink: 8) }
        return (libjpeg, scan, indexEverything.indexes.statistics().eighthsScanned > before)
    }

    func testEverySamplingIsLibjpegsEighthToTheBit() throws {
        // 4:2:0 (a 2 × 2 IDCT of chroma), 4:2:2 with restart markers, 4:4:0, 4:1:1, 4:4:4, gray, RGB components,
        // optimised tables, a 3-pixel-high strip, a tagged file converted to sRGB.
        for name in ["baseline.jpg", "restart.jpg", "restart-422.jpg", "sample-440.jpg", "sample-411.jpg", "q100-444.jpg",
                     "gray.jpg", "rgb-components.jpg", "optimized.jpg", "wide-9024x3.jpg", "eci-rgb-v2.jpg", "orient-6.jpg"] {
            let (libjpeg, scan, scanned) = try both(name)
            XCTAssert(scanned, "\(name): the 1/8 decode did not come from the scan")
            let expected = try libjpeg.get(), got = try scan.get()
            XCTAssert(expected == got, "\(name): differs by up to \(PixelCompare.maxDifference(expected, got))")
        }
    }

    /// A region at 1/8 as the first decode of a fresh file: the scan makes the rows down to its foot and stops
    /// there; a region further down then carries the plain scan on from that row (an extract of its MCUs).
    func testARegionFirstStopsTheScanWhereItEnds() throws {
        for name in ["baseline.jpg", "restart-422.jpg"] {
            let path = try Fixtures.temporary(try Fixtures.bytes(name), name: "region-\(UUID().uuidString)-\(name)")
            let whole = try ImageOpener.open(Fixtures.path(name)).decodeAll(shrink: 8)
            let source = try ImageOpener.open(path, limits: indexEverything)
            let (w, h) = source.size(shrink: 8)
            let before = indexEverything.indexes.statistics().eighthsScanned
            let upper = PixelRect(x: w / 3, y: h / 4, width: w / 3, height: h / 4)
            XCTAssert(try source.decode(upper, shrink: 8) == whole.cropped(to: upper), name)
            XCTAssertEqual(indexEverything.indexes.statistics().eighthsScanned, before + 1, name)
            let lower = PixelRect(x: 5, y: h * 3 / 4, width: w / 2, height: h - h * 3 / 4)
            XCTAssert(try source.decode(lower, shrink: 8) == whole.cropped(to: lower), name)
        }
    }

    /// CMYK (which the scan does not convert) and progressive files (which it cannot enter) are libjpeg's.
    func testFilesTheScanDoesNotDecodeGoToLibjpeg() throws {
        for name in ["cmyk.jpg", "progressive.jpg"] {
            let (libjpeg, scan, scanned) = try both(name)
            XCTAssertFalse(scanned, name)
            XCTAssert(try libjpeg.get() == scan.get(), name)
        }
    }

    /// After the 1/8 decode the index reaches the foot of the image: regions anywhere are extracts, with no scan.
    func testTheEighthLeavesTheFileIndexed() throws {
        let path = try Fixtures.temporary(try Fixtures.bytes("restart-422.jpg"), name: "indexed-\(UUID().uuidString).jpg")
        let source = try ImageOpener.open(path, limits: indexEverything)
        _ = try source.decodeAll(shrink: 8)
        let info = try XCTUnwrap(source as? JPEGSource).info
        let index = try XCTUnwrap(indexEverything.indexes.of(path, info, .local))
        XCTAssertEqual(index.indexedRows, index.rows)
        let rect = PixelRect(x: 400, y: 380, width: 120, height: 60)
        XCTAssert(try source.decode(rect) == ImageOpener.open(path).decodeAll().cropped(to: rect))
    }

    /// Where the data stops making sense (cut short, or a block of it overwritten) the scan stops, and libjpeg
    /// decodes the rest its own way: the same pixels, or the same failure, as libjpeg alone.
    func testDamagedDataEndsAsLibjpegWouldHaveIt() throws {
        let good = try Fixtures.bytes("baseline.jpg")
        var overwritten = good
        for i in good.count / 2 ..< good.count / 2 + 64 { overwritten[i] = UInt8(truncatingIfNeeded: i &* 37) }
        let cases: [(String, [UInt8])] = [("cut.jpg", Array(good[..<(good.count * 3 / 5)])), ("overwritten.jpg", overwritten)]
        for (name, bytes) in cases {
            let (libjpeg, scan, _) = try both(name, bytes: bytes)
            switch (libjpeg, scan) {
            case let (.success(a), .success(b)):
                XCTAssert(a == b, "\(name): differs by up to \(PixelCompare.maxDifference(a, b))")
            case let (.failure(a), .failure(b)):
                XCTAssertEqual("\(a)".replacingOccurrences(of: "plain-", with: ""),
                               "\(b)".replacingOccurrences(of: #"scanned-[0-9A-F-]+-"#, with: "", options: .regularExpression), name)
            default:
                XCTFail("\(name): libjpeg \(libjpeg.map { _ in "decoded" }), the scan \(scan.map { _ in "decoded" })")
            }
        }
    }
}
