import XCTest
@testable import TileGeometry
@testable import ImageCodecs

/// The public size of a tiered image, checked on both axes: the attacks of issue 58 item 2 by their numbers.
final class OutputLimitTests: XCTestCase {
    let limit = OutputLimit(longSide: 1000)
    let (W, H) = (5120, 2880)
    var full: PixelRect { PixelRect(x: 0, y: 0, width: W, height: H) }

    func testTheWholeImageUpToTheLimitAndNoFurther() {
        XCTAssertEqual(limit.largestSize(width: W, height: H).width, 1000)
        XCTAssertEqual(limit.largestSize(width: W, height: H).height, 563)
        XCTAssertTrue(limit.permits(region: full, outWidth: 1000, outHeight: 563, imageWidth: W, imageHeight: H))
        XCTAssertFalse(limit.permits(region: full, outWidth: 1002, outHeight: 563, imageWidth: W, imageHeight: H))
        XCTAssertTrue(OutputLimit.none.permits(region: full, outWidth: W * 2, outHeight: H * 2, imageWidth: W, imageHeight: H))
    }

    func testTheTallAxisIsJudgedToo() {
        // `full/1000,2880`: the width within, every row at full resolution.
        XCTAssertFalse(limit.permits(region: full, outWidth: 1000, outHeight: 2880, imageWidth: W, imageHeight: H))
        // A thin full-width strip, `0,0,5120,100/1000,100`.
        XCTAssertFalse(limit.permits(region: PixelRect(x: 0, y: 0, width: W, height: 100), outWidth: 1000, outHeight: 100,
                                     imageWidth: W, imageHeight: H))
        // One row at a time, each drawn as a row: refused, or the rows would add up to the whole at full height.
        XCTAssertFalse(limit.permits(region: PixelRect(x: 0, y: 7, width: W, height: 1), outWidth: 1000, outHeight: 1,
                                     imageWidth: W, imageHeight: H))
        // The same strip at the public scale passes.
        XCTAssertTrue(limit.permits(region: PixelRect(x: 0, y: 0, width: W, height: 100), outWidth: 1000, outHeight: 20,
                                    imageWidth: W, imageHeight: H))
        // A square crop upscaled (`square/^1000,`) and an empty region.
        XCTAssertFalse(limit.permits(region: PixelRect(x: 1120, y: 0, width: H, height: H), outWidth: 1000, outHeight: 1000,
                                     imageWidth: W, imageHeight: H))
        XCTAssertFalse(limit.permits(region: PixelRect(x: 0, y: 0, width: 0, height: 10), outWidth: 1, outHeight: 1,
                                     imageWidth: W, imageHeight: H))
    }

    func testLevelsAndZooms() {
        let g = PyramidGeometry(width: W, height: H)
        XCTAssertEqual(g.maxLevel, 13)
        XCTAssertEqual(limit.topLevel(of: g), 10)                 // 640 × 360; level 11 is 1280 × 720
        XCTAssertTrue(limit.permits(level: 10, of: g))
        XCTAssertFalse(limit.permits(level: 11, of: g))
        XCTAssertEqual(OutputLimit.none.topLevel(of: g), 13)
        XCTAssertTrue(limit.permits(zoom: 1000.0 / 5120, imageWidth: W, imageHeight: H))
        XCTAssertFalse(limit.permits(zoom: 0.25, imageWidth: W, imageHeight: H))
        // A limit above the image's own size is no limit on its pixels.
        XCTAssertEqual(OutputLimit(longSide: 9000).maxScale(width: W, height: H), 1)
    }
}
