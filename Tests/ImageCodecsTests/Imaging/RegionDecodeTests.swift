import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// A region or shrunk decode equals "decode everything, then crop / shrink" on the same file.
final class RegionDecodeTests: XCTestCase {
    /// Rectangles in a 701 × 453 image (or its upright 453 × 701 twin), several touching the right and bottom edges.
    private func rects(width: Int, height: Int) -> [PixelRect] {
        [
            PixelRect(x: 0, y: 0, width: width, height: height),
            PixelRect(x: 0, y: 0, width: 1, height: 1),
            PixelRect(x: 17, y: 9, width: 100, height: 61),
            PixelRect(x: width - 37, y: 5, width: 37, height: 40),
            PixelRect(x: 3, y: height - 29, width: 64, height: 29),
            PixelRect(x: width - 1, y: height - 1, width: 1, height: 1),
            PixelRect(x: width / 2, y: height / 2, width: width - width / 2, height: height - height / 2),
        ]
    }

    private func checkRegions(_ name: String, shrinks: [Int], limits: ImageLimits = ImageLimits(),
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let source = try ImageOpener.open(Fixtures.path(name), limits: limits)
        for shrink in shrinks {
            let whole = try source.decodeAll(shrink: shrink)
            let (w, h) = source.size(shrink: shrink)
            XCTAssertEqual(whole.width, w, file: file, line: line)
            XCTAssertEqual(whole.height, h, file: file, line: line)
            for rect in rects(width: w, height: h) where rect.fits(width: w, height: h) {
                let region = try source.decode(rect, shrink: shrink)
                let crop = whole.cropped(to: rect)
                XCTAssert(region == crop, "\(name) \(rect) at 1/\(shrink): differs by up to \(PixelCompare.maxDifference(region, crop))",
                          file: file, line: line)
            }
        }
    }

    func testPNGRegionsAreExactCrops() throws {
        try checkRegions("rgb.png", shrinks: [1, 2, 4, 16])
        try checkRegions("rgba.png", shrinks: [1, 8])
        try checkRegions("interlaced.png", shrinks: [1, 4])
    }

    func testJPEGRegionsAreExactCrops() throws {
        try checkRegions("baseline.jpg", shrinks: [1, 2, 4, 8, 32])
        try checkRegions("progressive.jpg", shrinks: [1, 8])
        try checkRegions("restart.jpg", shrinks: [1, 2])
        try checkRegions("q100-444.jpg", shrinks: [1, 4])
        try checkRegions("restart-422.jpg", shrinks: [1, 2, 4])
        try checkRegions("cmyk.jpg", shrinks: [1, 2])
        try checkRegions("orient-6.jpg", shrinks: [1, 4])
        try checkRegions("orient-3.jpg", shrinks: [1, 2])
        try checkRegions("orient-2.jpg", shrinks: [1])
    }

    /// Every region away from the top-left corner comes from an extract of the MCUs under it (`JPEGEntryIndex`),
    /// whatever the sampling, tables, restart markers and colour space, and equals the whole decode's crop. Files
    /// with the standard tables and no restart markers have most of each row's bits copied whole; the optimised
    /// and restart-marked ones have every symbol decoded and coded again.
    func testJPEGRegionsThroughTheEntryIndexAreExactCrops() throws {
        let everyFile = ImageLimits(entryIndexPixels: 0)
        let before = everyFile.indexes.statistics().extracts
        let copiedBefore = everyFile.indexes.statistics().rowsCopiedWhole
        for name in ["optimized.jpg", "restart.jpg", "restart-422.jpg"] {
            try checkRegions(name, shrinks: [1, 4], limits: everyFile)
        }
        XCTAssertEqual(everyFile.indexes.statistics().rowsCopiedWhole, copiedBefore,
                       "an optimised DC table or restart markers must not be copied whole")
        for name in ["baseline.jpg", "optimized.jpg", "restart.jpg", "restart-422.jpg", "q100-444.jpg", "gray.jpg",
                     "cmyk.jpg", "orient-6.jpg", "wide-9024x3.jpg"] {
            try checkRegions(name, shrinks: [1, 2, 4, 8, 32], limits: everyFile)
        }
        try checkRegions("progressive.jpg", shrinks: [1], limits: everyFile)
        // 9 files × 5 shrinks × the 6 rectangles not at the top-left corner, less those that do not fit.
        XCTAssertGreaterThan(everyFile.indexes.statistics().extracts - before, 200)
        XCTAssertGreaterThan(everyFile.indexes.statistics().rowsCopiedWhole - copiedBefore, 100)
    }

    func testPNGShrinkIsTheBoxAverage() throws {
        for name in ["rgb.png", "rgba.png", "gray16.png"] {
            let source = try ImageOpener.open(Fixtures.path(name))
            let full = try source.decodeAll()
            for shrink in [2, 4, 8, 64, 1024] {
                XCTAssertEqual(try source.decodeAll(shrink: shrink), PixelCompare.boxShrink(full, by: shrink), "\(name) 1/\(shrink)")
            }
        }
    }

    /// libjpeg's DCT scaling is not a box filter, but it must stay close to one.
    func testJPEGShrinkIsCloseToTheBoxAverage() throws {
        for name in ["baseline.jpg", "progressive.jpg", "gray.jpg", "orient-8.jpg", "wide-9024x3.jpg"] {
            let source = try ImageOpener.open(Fixtures.path(name))
            let full = try source.decodeAll()
            for shrink in [2, 4, 8, 16, 64] {
                let ours = try source.decodeAll(shrink: shrink)
                let box = PixelCompare.boxShrink(full, by: shrink)
                XCTAssertEqual(ours.width, box.width)
                XCTAssertEqual(ours.height, box.height)
                let psnr = PixelCompare.psnr(ours, box)
                XCTAssertGreaterThan(psnr, 30, "\(name) at 1/\(shrink): PSNR \(psnr) against a box shrink")
            }
        }
    }

    func testBandsArriveInOrderAndCoverTheRect() throws {
        let source = try ImageOpener.open(Fixtures.path("baseline.jpg"))
        var next = 0
        let rect = PixelRect(x: 5, y: 7, width: 300, height: 211)
        try source.decode(rect, shrink: 1, bandRows: 50) { band in
            XCTAssertEqual(band.y, next)
            XCTAssertLessThanOrEqual(band.rows, 50)
            XCTAssertEqual(band.bytes.count, band.rows * 300 * 3)
            next += band.rows
        }
        XCTAssertEqual(next, 211)
    }

    func testRegionsOutsideTheImageAreRefused() throws {
        let source = try ImageOpener.open(Fixtures.path("baseline.jpg"))
        for (rect, shrink) in [(PixelRect(x: 700, y: 0, width: 2, height: 1), 1),
                               (PixelRect(x: 0, y: 0, width: 0, height: 1), 1),
                               (PixelRect(x: -1, y: 0, width: 2, height: 2), 1),
                               (PixelRect(x: 0, y: 0, width: 352, height: 1), 2),
                               (PixelRect(x: 0, y: 0, width: 1, height: 1), 3),
                               (PixelRect(x: 0, y: 0, width: 1, height: 1), 0)] {
            XCTAssertThrowsError(try source.decode(rect, shrink: shrink)) { error in
                guard case ImageSourceError.regionOutside = error else { return XCTFail("\(error)") }
            }
        }
    }
}
