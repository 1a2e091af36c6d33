import Foundation
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport
@testable import TileGeometry

/// A region that is a block of whole tiles of one level (the Universal Viewer's 512 px tiles over 256 px ones) is
/// answered by joining the tiles' JPEGs by their coefficients: the same pixels as the tiles, no second loss.
final class JoinedRegionTests: XCTestCase {
    private func service(_ fixture: String = "rgb.png", renderBytes: Int = 512 << 20) throws -> (TileService, PyramidImage) {
        let options = TileOptions(tileSize: 128, rasterDirectory: NSTemporaryDirectory(), renderBytes: renderBytes)
        let image = try PyramidImage(id: "p", path: Fixtures.path(fixture), options: options)
        return (TileService(images: [image], options: options), image)
    }

    /// The tiles under `block`, decoded and put side by side.
    private func composite(_ service: TileService, _ block: TileBlock, geometry: PyramidGeometry) throws -> PixelBuffer {
        let origin = try geometry.rect(of: TileCoordinate(level: block.level, x: block.columns.lowerBound, y: block.rows.lowerBound))
        let window = PixelRect(x: origin.x, y: origin.y, width: block.width, height: block.height)
        var canvas = PixelBuffer(width: block.width, height: block.height, channels: 3)
        for tile in block.tiles {
            let pixels = try ImageDecoder.decode(try service.tile(image: "p", tile: tile, format: .jpeg).tile.bytes)
            canvas.paste(pixels, at: try geometry.rect(of: tile), window: window)
        }
        return canvas
    }

    func testABlockOfWholeTilesIsTheTilesJoined() throws {
        let (service, image) = try service()
        let snapshot = try image.current()
        let g = snapshot.geometry // 701 × 453, 128 px tiles
        let cases: [(PixelRect, Int, Int, String)] = [
            (PixelRect(x: 128, y: 128, width: 256, height: 256), 256, 256, "2 × 2 at full size"),
            (PixelRect(x: 512, y: 256, width: 189, height: 197), 189, 197, "the bottom right corner: edge tiles"),
            (PixelRect(x: 0, y: 0, width: 701, height: 256), 351, 128, "3 × 1 at half size, to the right edge"),
            (PixelRect(x: 0, y: 0, width: 701, height: 453), 176, 114, "the whole image at a quarter: 2 × 1, both edges"),
        ]
        for (index, (region, w, h, why)) in cases.enumerated() {
            let joined = try XCTUnwrap(try service.joinedRegion(region, outWidth: w, outHeight: h, of: image, in: snapshot, limit: .none), why)
            let block = try XCTUnwrap(g.tileBlock(exactly: region, outWidth: w, outHeight: h), why)
            let pixels = try ImageDecoder.decode(joined)
            XCTAssertEqual([pixels.width, pixels.height], [w, h], why)
            // The tiles' coefficients as they are: the pixels differ only where chroma is upsampled across a seam.
            let tiles = try composite(service, block, geometry: g)
            XCTAssertLessThan(PixelCompare.meanAbsoluteDifference(pixels, tiles), 0.1, why)
            XCTAssertLessThanOrEqual(PixelCompare.maxDifference(pixels, tiles), 24, why)
            // And what the ordinary region path makes, which may take a tile's pixels before they were encoded
            // (a pass hands them over): within one JPEG generation. A tile out of place would be tens of levels off.
            let region = try service.region(region, outWidth: w, outHeight: h, of: image, in: snapshot)
            XCTAssertLessThan(PixelCompare.meanAbsoluteDifference(pixels, region), 4, why)
            XCTAssertEqual(service.statistics().passes.joinedRegions, index + 1, why)
        }
    }

    func testOtherRegionsAreMadeTheOrdinaryWay() throws {
        let (service, image) = try service()
        let snapshot = try image.current()
        let cases: [(PixelRect, Int, Int, String)] = [
            (PixelRect(x: 64, y: 0, width: 256, height: 256), 256, 256, "off the grid"),
            (PixelRect(x: 128, y: 128, width: 128, height: 128), 128, 128, "one tile (the tile path answers it)"),
            (PixelRect(x: 128, y: 128, width: 256, height: 256), 200, 200, "resampled"),
            (PixelRect(x: 128, y: 128, width: 256, height: 250), 256, 250, "part of a tile"),
            (PixelRect(x: 0, y: 0, width: 701, height: 453), 176, 113, "a pixel off the level's 176 × 114 (a derived IIIF size)"),
        ]
        for (region, w, h, why) in cases {
            XCTAssertNil(try service.joinedRegion(region, outWidth: w, outHeight: h, of: image, in: snapshot, limit: .none), why)
        }
        let (alpha, translucent) = try self.service("rgba.png")
        XCTAssertNil(try alpha.joinedRegion(PixelRect(x: 0, y: 0, width: 256, height: 128), outWidth: 256, outHeight: 128,
                                            of: translucent, in: try translucent.current(), limit: .none), "alpha: tiles are not JPEG")
        XCTAssertEqual(service.statistics().passes.joinedRegions, 0)

        // A join that would take more than a whole output may (a quarter of the render budget) is left to the
        // banded path, which still makes the region.
        let (small, photo) = try self.service(renderBytes: 2 << 20)
        let snapshot2 = try photo.current(), block = PixelRect(x: 0, y: 0, width: 384, height: 256)
        XCTAssertNil(try small.joinedRegion(block, outWidth: 384, outHeight: 256, of: photo, in: snapshot2, limit: .none))
        let plan = RegionPlan(rect: block, outWidth: 384, outHeight: 256, geometry: snapshot2.geometry, channels: 3)
        let output = try small.encodedRegion(plan, transform: PixelTransform(), format: .jpeg, of: photo, in: snapshot2, limit: .none)
        guard case .file = output else { return XCTFail("a region past a quarter of the budget is made in bands") }
        let pixels = try ImageDecoder.decode(try output.readAll())
        XCTAssertEqual([pixels.width, pixels.height], [384, 256])
    }

    /// Tiles are joined only when coded alike; anything else is nil, never a wrong or broken image.
    func testTilesCodedDifferentlyAreNotJoined() throws {
        let photo = try ImageOpener.open(Fixtures.path("rgb.png")).decodeAll()
        let left = photo.cropped(to: PixelRect(x: 0, y: 0, width: 128, height: 128))
        let right = photo.cropped(to: PixelRect(x: 128, y: 0, width: 128, height: 128))
        let a = try ImageEncoder.jpeg(left, quality: 85), b = try ImageEncoder.jpeg(right, quality: 85)
        func join(_ tiles: [[UInt8]], width: Int = 256) -> [UInt8]? {
            ImageEncoder.joinedJPEG(tiles, columns: 2, rows: 1, tileSize: 128, width: width, height: 128, profile: nil)
        }
        func sideBySide(_ tiles: [[UInt8]]) throws -> PixelBuffer {
            let window = PixelRect(x: 0, y: 0, width: 256, height: 128)
            var canvas = PixelBuffer(width: 256, height: 128, channels: 3)
            for (i, tile) in tiles.enumerated() {
                canvas.paste(try ImageDecoder.decode(tile), at: PixelRect(x: 128 * i, y: 0, width: 128, height: 128), window: window)
            }
            return canvas
        }
        let joined = try ImageDecoder.decode(try XCTUnwrap(join([a, b])))
        XCTAssertLessThan(PixelCompare.meanAbsoluteDifference(joined, try sideBySide([a, b])), 0.1)
        XCTAssertTrue(join([a, try ImageEncoder.jpeg(right, quality: 60)]) == nil, "other quantisation tables")
        XCTAssertTrue(join([a, try ImageEncoder.jpeg(right, quality: 85, subsample: false)]) == nil, "other sampling")
        XCTAssertTrue(join([a, try ImageEncoder.jpeg(right.cropped(to: PixelRect(x: 0, y: 0, width: 100, height: 128)))]) == nil,
                      "a tile narrower than the width says")
        XCTAssertTrue(join([a, b], width: 300) == nil, "wider than two tiles")
        XCTAssertTrue(join([a, Array(b.prefix(b.count / 3))]) == nil, "a tile cut short")
        XCTAssertTrue(join([a, Array(repeating: 0x55, count: 400)]) == nil, "not a JPEG")
        XCTAssertTrue(join([a]) == nil, "fewer tiles than columns × rows")
        let gray = try ImageEncoder.jpeg(left.gray(bitonal: false), quality: 85)
        XCTAssertTrue(join([a, gray]) == nil, "other components")
        let grays = try ImageDecoder.decode(try XCTUnwrap(join([gray, gray]), "gray tiles join too"))
        XCTAssertEqual(PixelCompare.maxDifference(grays, try sideBySide([gray, gray])), 0, "one component: nothing upsampled")
        // A profile is embedded as given (the tiles of an image whose colours are kept carry one).
        let profile = Array(repeating: UInt8(7), count: 300)
        let tagged = try XCTUnwrap(ImageEncoder.joinedJPEG([a, b], columns: 2, rows: 1, tileSize: 128, width: 256, height: 128,
                                                           profile: profile))
        XCTAssertNotNil(Data(tagged).range(of: Data("ICC_PROFILE".utf8)))
    }
}
