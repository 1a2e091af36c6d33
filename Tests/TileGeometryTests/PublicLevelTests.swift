import XCTest
import ImageValues
@testable import TileGeometry

/// A tiered image's public level: the whole image at exactly its public size, every tile a region the limit
/// permits, the tiles covering the image without gaps, and none where the limit is a level of the pyramid.
final class PublicLevelTests: XCTestCase {
    func testTilesCoverThePublicSizeAndEachIsPermitted() throws {
        for (w, h, side) in [(10170, 8090, 1000), (5120, 2880, 1000), (4000, 3000, 1600), (2880, 5120, 777), (3001, 17, 300)] {
            let g = PyramidGeometry(width: w, height: h, tileSize: 256)
            let limit = OutputLimit(longSide: side)
            let level = try XCTUnwrap(PublicLevel(g, limit: limit), "\(w)×\(h) at \(side)")
            XCTAssertEqual(max(level.width, level.height), side)
            let tiles = level.tiles(covering: ViewRect(x: 0, y: 0, width: Double(w), height: Double(h)))
            let columns = (level.width + 255) / 256, rows = (level.height + 255) / 256
            XCTAssertEqual(tiles.count, columns * rows)
            XCTAssertEqual(tiles.filter { $0.y == 0 }.map(\.width).reduce(0, +), level.width)
            XCTAssertEqual(tiles.filter { $0.x == 0 }.map(\.height).reduce(0, +), level.height)
            for t in tiles {
                XCTAssertTrue(limit.permits(region: t.region, outWidth: t.width, outHeight: t.height, imageWidth: w, imageHeight: h),
                              "\(w)×\(h) at \(side): tile \(t.x),\(t.y) \(t.region) → \(t.width)×\(t.height)")
                if let right = level.tile(x: t.x + 1, y: t.y) { XCTAssertLessThanOrEqual(right.region.x, t.region.x + t.region.width, "no gap") }
                if let below = level.tile(x: t.x, y: t.y + 1) { XCTAssertLessThanOrEqual(below.region.y, t.region.y + t.region.height, "no gap") }
            }
            XCTAssertEqual(tiles.last.map { $0.region.x + $0.region.width }, w)
            XCTAssertEqual(tiles.last.map { $0.region.y + $0.region.height }, h)
        }
    }

    func testAPartOfTheImageNeedsOnlyItsTiles() throws {
        let g = PyramidGeometry(width: 10170, height: 8090, tileSize: 256)
        let level = try XCTUnwrap(PublicLevel(g, limit: OutputLimit(longSide: 1000)))
        let part = level.tiles(covering: ViewRect(x: 3000, y: 3000, width: 1000, height: 500))
        XCTAssertEqual(Set(part.map(\.x)), [1])            // 3000…4000 image px are public px 295…393
        XCTAssertEqual(Set(part.map(\.y)), [1])
    }

    func testNoPublicLevelWithoutALimitOrWhereTheLimitIsALevel() throws {
        let g = PyramidGeometry(width: 4096, height: 2048, tileSize: 256)
        XCTAssertNil(PublicLevel(g, limit: .none))
        XCTAssertNil(PublicLevel(g, limit: OutputLimit(longSide: 1024)), "the level of 1024 px is the public size")
        XCTAssertNil(PublicLevel(g, limit: OutputLimit(longSide: 5000)), "the limit allows the whole image")
        XCTAssertNotNil(PublicLevel(g, limit: OutputLimit(longSide: 1500)))
    }

    func testTheToggleGoesToTheFullZoomNotTheLargest() throws {
        let g = PyramidGeometry(width: 4000, height: 3000, tileSize: 256)
        let model = try ScrollViewModel(geometry: g, viewWidth: 1440, viewHeight: 784, maxZoom: 1.6, pixelRatio: 1, levelCap: 11, fullZoom: 0.4)
        XCTAssertEqual(model.doubleTap(zoom: model.minZoom, x: 2000, y: 1500, mode: .toggle).zoom, 0.4, accuracy: 1e-12)
        XCTAssertEqual(model.level(forZoom: 1.6), 11, "no tile deeper than the cap")
        let native = try ScrollViewModel(geometry: g, viewWidth: 1440, viewHeight: 784, maxZoom: 4)
        XCTAssertEqual(native.doubleTap(zoom: native.minZoom, x: 2000, y: 1500, mode: .toggle).zoom, 1, accuracy: 1e-12, "100 %, not 400 %")
    }
}
