import XCTest
@testable import TileGeometry
@testable import ImageCodecs

/// Hand-worked DeepZoom numbers.
final class PyramidGeometryTests: XCTestCase {
    func testPhotoWhoseSidesAreNotMultiplesOfTheTile() throws {
        let g = PyramidGeometry(width: 5640, height: 3172)
        XCTAssertEqual(g.maxLevel, 13)                       // 4096 < 5640 <= 8192
        XCTAssertTrue(g.levelSize(13) == (5640, 3172))
        XCTAssertTrue(g.levelSize(12) == (2820, 1586))
        XCTAssertTrue(g.levelSize(11) == (1410, 793))
        XCTAssertTrue(g.levelSize(1) == (2, 1))
        XCTAssertTrue(g.levelSize(0) == (1, 1))
        XCTAssertTrue(g.tileCount(13) == (23, 13))
        XCTAssertTrue(g.tileCount(11) == (6, 4))
        XCTAssertEqual(try g.rect(of: TileCoordinate(level: 13, x: 22, y: 12)), PixelRect(x: 5632, y: 3072, width: 8, height: 100))
        XCTAssertEqual(try g.rect(of: TileCoordinate(level: 11, x: 5, y: 3)), PixelRect(x: 1280, y: 768, width: 130, height: 25))
        XCTAssertEqual(g.shrink(ofLevel: 11), 4)
        XCTAssertEqual(g.scale(ofLevel: 12), 0.5)
    }

    func testStripAndSinglePixel() throws {
        let strip = PyramidGeometry(width: 9024, height: 3)
        XCTAssertEqual(strip.maxLevel, 14)
        XCTAssertTrue(strip.tileCount(14) == (36, 1))
        XCTAssertEqual(try strip.rect(of: TileCoordinate(level: 14, x: 35, y: 0)), PixelRect(x: 8960, y: 0, width: 64, height: 3))
        XCTAssertTrue(strip.levelSize(13) == (4512, 2))
        XCTAssertTrue(strip.levelSize(12) == (2256, 1))
        XCTAssertTrue(strip.levelSize(0) == (1, 1))
        let dot = PyramidGeometry(width: 1, height: 1)
        XCTAssertEqual(dot.maxLevel, 0)
        XCTAssertEqual(try dot.rect(of: TileCoordinate(level: 0, x: 0, y: 0)), PixelRect(x: 0, y: 0, width: 1, height: 1))
        XCTAssertEqual(dot.totalTiles, 1)
        XCTAssertEqual(PyramidGeometry(width: 2, height: 1).maxLevel, 1)
        XCTAssertEqual(PyramidGeometry(width: 256, height: 256).maxLevel, 8)
        XCTAssertEqual(PyramidGeometry(width: 257, height: 10).maxLevel, 9)
    }

    func testOverlapExtendsInteriorEdgesOnly() throws {
        let g = PyramidGeometry(width: 5640, height: 3172, tileSize: 256, overlap: 1)
        XCTAssertEqual(try g.rect(of: TileCoordinate(level: 13, x: 0, y: 0)), PixelRect(x: 0, y: 0, width: 257, height: 257))
        XCTAssertEqual(try g.rect(of: TileCoordinate(level: 13, x: 1, y: 1)), PixelRect(x: 255, y: 255, width: 258, height: 258))
        XCTAssertEqual(try g.rect(of: TileCoordinate(level: 13, x: 22, y: 12)), PixelRect(x: 5631, y: 3071, width: 9, height: 101))
    }

    func testOutOfRangeErrorsNameTheValidRange() {
        let g = PyramidGeometry(width: 5640, height: 3172)
        XCTAssertThrowsError(try g.rect(of: TileCoordinate(level: 13, x: 23, y: 0))) { error in
            XCTAssertEqual("\(error)", "level 13 has 23×13 tiles; asked for 23,0")
        }
        XCTAssertThrowsError(try g.rect(of: TileCoordinate(level: 14, x: 0, y: 0))) { error in
            XCTAssertEqual("\(error)", "level 14 does not exist; levels run from 0 to 13")
        }
        XCTAssertThrowsError(try g.rect(of: TileCoordinate(level: 5, x: 0, y: -1)))
    }

    func testTilesCoveringARect() {
        let g = PyramidGeometry(width: 5640, height: 3172)
        XCTAssertEqual(g.tiles(atLevel: 13, covering: PixelRect(x: 250, y: 0, width: 10, height: 256)).map(\.description), ["13/0/0", "13/1/0"])
        XCTAssertEqual(g.tiles(atLevel: 0, covering: PixelRect(x: 0, y: 0, width: 1, height: 1)).count, 1)
        XCTAssertEqual(g.totalTiles, (0 ... 13).map { let c = g.tileCount($0); return c.columns * c.rows }.reduce(0, +))
    }

    /// IIIF regions that are exactly one tile, as tiled viewers ask for them, including cut edge tiles.
    func testExactTileRegions() {
        let g = PyramidGeometry(width: 5120, height: 2880, tileSize: 256) // maxLevel 13
        XCTAssertEqual(g.tile(exactly: PixelRect(x: 2048, y: 1024, width: 1024, height: 1024), outWidth: 256, outHeight: 256),
                       TileCoordinate(level: 11, x: 2, y: 1))
        XCTAssertEqual(g.tile(exactly: PixelRect(x: 0, y: 0, width: 256, height: 256), outWidth: 256, outHeight: 256),
                       TileCoordinate(level: 13, x: 0, y: 0))
        // The bottom edge at level 11: rows 2048 ..< 2880 are 832 full-resolution rows, 208 level rows.
        XCTAssertEqual(g.tile(exactly: PixelRect(x: 4096, y: 2048, width: 1024, height: 832), outWidth: 256, outHeight: 208),
                       TileCoordinate(level: 11, x: 4, y: 2))
        // The whole image as level 8's single tile (160 × 90).
        XCTAssertEqual(g.tile(exactly: PixelRect(x: 0, y: 0, width: 5120, height: 2880), outWidth: 160, outHeight: 90),
                       TileCoordinate(level: 8, x: 0, y: 0))
        XCTAssertNil(g.tile(exactly: PixelRect(x: 2048, y: 1024, width: 1024, height: 1024), outWidth: 255, outHeight: 256))
        XCTAssertEqual(g.tile(exactly: PixelRect(x: 2048, y: 1024, width: 1024, height: 1024), outWidth: 255, outHeight: 256, slack: 1),
                       TileCoordinate(level: 11, x: 2, y: 1), "a derived side may round one pixel off")
        XCTAssertNil(g.tile(exactly: PixelRect(x: 2000, y: 1024, width: 1024, height: 1024), outWidth: 256, outHeight: 256), "not on the grid")
        XCTAssertNil(g.tile(exactly: PixelRect(x: 2048, y: 1024, width: 1000, height: 1024), outWidth: 250, outHeight: 256), "not a whole cell")
        XCTAssertNil(PyramidGeometry(width: 5120, height: 2880, tileSize: 254, overlap: 1)
            .tile(exactly: PixelRect(x: 0, y: 0, width: 254, height: 254), outWidth: 254, outHeight: 254), "overlapping tiles are never a plain cell")
    }
}
