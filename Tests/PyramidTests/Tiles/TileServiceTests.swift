import Dispatch
import Foundation
import POSIXSupport
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport
@testable import TileGeometry

final class TileServiceTests: XCTestCase {
    private func service(_ files: [String: String], cacheBytes: Int = 64 << 20) throws -> TileService {
        let options = TileOptions(cacheBytes: cacheBytes, rasterDirectory: NSTemporaryDirectory())
        let images = try files.sorted { $0.key < $1.key }.map { try PyramidImage(id: $0.key, path: $0.value, options: options) }
        return TileService(images: images, options: options)
    }

    private func decode(_ tile: EncodedTile) throws -> PixelBuffer {
        try ImageOpener.open(try Fixtures.temporary(tile.bytes, name: "tile-\(UUID().uuidString).\(tile.format.fileExtension)")).decodeAll()
    }

    /// Every tile of every level, as PNG, equals the box-averaged full decode of the PNG source: exactly where
    /// a pass cascades 2 × 2 halvings, within a rounding step where a region pass averaged a level's blocks at once.
    func testPNGTilesAreExactAreaAverages() throws {
        let s = try service(["rgb": Fixtures.path("rgb.png")])
        let full = try ImageOpener.open(Fixtures.path("rgb.png")).decodeAll()
        let geometry = try XCTUnwrap(s.image("rgb")).current().geometry
        XCTAssertEqual(geometry.maxLevel, 10)
        for level in 0 ... geometry.maxLevel {
            let shrink = geometry.shrink(ofLevel: level)
            let base = shrink >= 8 ? 8 : 1
            let expected = full.boxShrunk(by: base).halved(times: (shrink / base).trailingZeroBitCount)
            let (columns, rows) = geometry.tileCount(level)
            for y in 0 ..< rows { for x in 0 ..< columns {
                let tile = TileCoordinate(level: level, x: x, y: y)
                let answer = try s.tile(image: "rgb", tile: tile, format: .png)
                let ours = try decode(answer.tile), wanted = expected.cropped(to: try geometry.rect(of: tile))
                XCTAssertLessThanOrEqual(PixelCompare.maxDifference(ours, wanted), level == geometry.maxLevel ? 0 : 1, "tile \(tile)")
            } }
        }
    }

    func testJPEGTilesAreCloseToAreaAverages() throws {
        let s = try service(["photo": Fixtures.path("q100-444.jpg")])
        let full = try ImageOpener.open(Fixtures.path("q100-444.jpg")).decodeAll()
        let geometry = try XCTUnwrap(s.image("photo")).current().geometry
        for tile in [TileCoordinate(level: 10, x: 2, y: 1), TileCoordinate(level: 9, x: 1, y: 0), TileCoordinate(level: 7, x: 0, y: 0)] {
            let ours = try decode(try s.tile(image: "photo", tile: tile, format: .jpeg).tile)
            let expected = full.boxShrunk(by: geometry.shrink(ofLevel: tile.level)).cropped(to: try geometry.rect(of: tile))
            XCTAssertGreaterThan(PixelCompare.psnr(ours, expected), 32, "tile \(tile)")
        }
    }

    func testSecondRequestIsACacheHitWithTheSameETag() throws {
        let s = try service(["a": Fixtures.path("baseline.jpg")])
        let tile = TileCoordinate(level: 10, x: 1, y: 1)
        let first = try s.tile(image: "a", tile: tile, format: .jpeg)
        let second = try s.tile(image: "a", tile: tile, format: .jpeg)
        XCTAssertEqual(first.origin, .rendered)
        XCTAssertEqual(second.origin, .memory)
        XCTAssertEqual(first.tile.etag, second.tile.etag)
        XCTAssertEqual(s.tilesRendered, 1)
        XCTAssertEqual(s.cache.statistics.misses, 1, "the render after a missed lookup does not count a second miss")
        XCTAssertEqual(s.cache.statistics.hits, 1)
        // The pass that cut the tile keeps its neighbours as JPEG (no store here: in memory) once its encoders are
        // done; PNG is made on demand.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, s.statistics().passes.regionsRunning + s.statistics().passes.running > 0 { usleep(2000) }
        guard case .hit = try s.lookup(image: "a", tile: TileCoordinate(level: 10, x: 0, y: 0), format: .jpeg) else {
            return XCTFail("a tile the pass cut is a hit")
        }
        XCTAssertEqual(s.cache.statistics.hits, 2)
        guard case let .miss(miss) = try s.lookup(image: "a", tile: TileCoordinate(level: 10, x: 0, y: 0), format: .png) else {
            return XCTFail("an unrendered tile is a miss")
        }
        XCTAssertEqual(miss.key.tile, TileCoordinate(level: 10, x: 0, y: 0))
        XCTAssertEqual(s.cache.statistics.misses, 2)
        XCTAssertEqual(try s.render(miss).origin, .rendered, "the miss job renders without looking the image up again")
        guard case .hit = try s.lookup(image: "a", tile: TileCoordinate(level: 10, x: 0, y: 0), format: .png) else {
            return XCTFail("a rendered tile is a hit")
        }
        XCTAssertEqual(s.cache.statistics.hits, 3)
        XCTAssertThrowsError(try s.tile(image: "a", tile: TileCoordinate(level: 10, x: 3, y: 0), format: .jpeg)) { error in
            XCTAssertEqual("\(error)", "level 10 has 3×2 tiles; asked for 3,0")
        }
        XCTAssertThrowsError(try s.tile(image: "nope", tile: tile, format: .jpeg))
    }

    func testConcurrentMissesForOneTileRenderOnce() throws {
        let s = try service(["a": Fixtures.path("progressive.jpg")])
        let tile = TileCoordinate(level: 10, x: 2, y: 1)
        let etags = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let answer = try! s.tile(image: "a", tile: tile, format: .jpeg)
            etags.withLock { $0.append(answer.tile.etag) }
        }
        XCTAssertEqual(s.tilesRendered, 1)
        XCTAssertEqual(Set(etags.withLock { $0 }).count, 1)
    }

    func testByteBoundWithManyTilesFromManyThreads() throws {
        let s = try service(["a": Fixtures.path("baseline.jpg"), "b": Fixtures.path("rgb.png")], cacheBytes: 100_000)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for level in 0 ... 10 {
                for id in ["a", "b"] {
                    let g = try! s.image(id)!.current().geometry
                    let (c, r) = g.tileCount(level)
                    for y in 0 ..< r { for x in 0 ..< c {
                        _ = try! s.tile(image: id, tile: TileCoordinate(level: level, x: (x + worker) % c, y: y), format: .png)
                    } }
                }
            }
        }
        let stats = s.cache.statistics
        XCTAssertLessThanOrEqual(stats.bytes, 100_000)
        XCTAssertGreaterThan(stats.evictions, 0)
    }

    func testChangedSourceIsDetectedAndOldTilesDropped() throws {
        let path = try Fixtures.temporary(try Fixtures.bytes("baseline.jpg"), name: "changing.jpg")
        let s = try service(["c": path])
        let tile = TileCoordinate(level: 8, x: 0, y: 0)
        let before = try s.tile(image: "c", tile: tile, format: .png)
        XCTAssertGreaterThanOrEqual(s.cache.statistics.entries, 1)
        // Replace the file with a different picture of another size (write elsewhere, then rename). The source
        // is checked at most once a second, so the change shows within a second.
        let replacement = try Fixtures.temporary(try Fixtures.bytes("gray.jpg"), name: "replacement.jpg")
        XCTAssertEqual(rename(replacement, path), 0)
        usleep(1_050_000)
        let after = try s.tile(image: "c", tile: tile, format: .png)
        XCTAssertEqual(after.origin, .rendered)
        XCTAssertNotEqual(before.tile.etag, after.tile.etag)
        let pixels = try decode(after.tile)
        let gray = pixels.bytes.enumerated().allSatisfy { i, v in i % 3 != 0 || (v == pixels.bytes[i + 1] && v == pixels.bytes[i + 2]) }
        XCTAssertTrue(gray, "tiles after the change come from the new (gray) file")
        let generation = try XCTUnwrap(s.image("c")).current().generation
        XCTAssertTrue(s.cache.keysByRecency.allSatisfy { $0.generation == generation }, "the old version's tiles were dropped")
        try s.purge(image: "c")
        XCTAssertEqual(s.cache.statistics.entries, 0)
    }

    /// A region made after its level's tiles are cached renders nothing new, and matches one made from scratch.
    func testRegionsAreAssembledFromCachedTiles() throws {
        let warm = try service(["a": Fixtures.path("rgb.png")])
        let image = try XCTUnwrap(warm.image("a")), snapshot = try image.current()
        let g = snapshot.geometry
        let level = g.maxLevel - 1
        let (columns, rows) = g.tileCount(level)
        for y in 0 ..< rows { for x in 0 ..< columns {
            _ = try warm.tile(image: "a", tile: TileCoordinate(level: level, x: x, y: y), format: .png)
        } }
        let rendered = warm.tilesRendered
        let rect = PixelRect(x: 100, y: 60, width: 700, height: 400)
        let fromCache = try warm.region(rect, outWidth: 350, outHeight: 200, of: image, in: snapshot)
        XCTAssertEqual(warm.tilesRendered, rendered, "every tile came from the cache")

        let cold = try service(["a": Fixtures.path("rgb.png")])
        let coldImage = try XCTUnwrap(cold.image("a"))
        let fresh = try cold.region(rect, outWidth: 350, outHeight: 200, of: coldImage, in: coldImage.current())
        // Cold, the region reads the JPEG tiles its level's pass kept: within JPEG's error of the PNG-made one.
        XCTAssertLessThan(PixelCompare.meanAbsoluteDifference(fromCache, fresh), 2)
        XCTAssertLessThanOrEqual(cold.tilesRendered, 2, "at most the two level-9 tiles under the region were rendered")
        let again = cold.tilesRendered
        _ = try cold.region(rect, outWidth: 350, outHeight: 200, of: coldImage, in: coldImage.current())
        XCTAssertEqual(cold.tilesRendered, again, "the region's own renders were cached")
    }

    func testCachedTilesDecodeBackToPixels() throws {
        let s = try service(["a": Fixtures.path("rgb.png")])
        let tile = TileCoordinate(level: 9, x: 1, y: 0)
        let png = try s.tile(image: "a", tile: tile, format: .png).tile
        XCTAssertEqual(try ImageDecoder.decode(png.bytes), try decode(png))
        let jpeg = try s.tile(image: "a", tile: tile, format: .jpeg).tile
        let pixels = try ImageDecoder.decode(jpeg.bytes)
        XCTAssertEqual(pixels, try decode(jpeg), "the same decoder as for files")
        XCTAssertThrowsError(try ImageDecoder.decode(Array(jpeg.bytes.prefix(jpeg.bytes.count / 2)))) { error in
            XCTAssertTrue("\(error)".contains("truncated"), "\(error)")
        }
        XCTAssertThrowsError(try ImageDecoder.decode(Array(png.bytes.prefix(40))))
        XCTAssertThrowsError(try ImageDecoder.decode([0x47, 0x49, 0x46, 0x38])) { error in
            XCTAssertTrue("\(error)".contains("not a JPEG, PNG"), "\(error)")
        }
    }

    func testASourceCutInItsFirstRowsFailsEveryTileAsTruncated() throws {
        let bytes = try Fixtures.bytes("baseline.jpg")
        let scan = try XCTUnwrap(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let s = try service(["h": try Fixtures.temporary(Array(bytes.prefix(scan + 200)), name: "cut.jpg")])
        for tile in [TileCoordinate(level: 10, x: 0, y: 1), TileCoordinate(level: 10, x: 0, y: 0), TileCoordinate(level: 3, x: 0, y: 0)] {
            XCTAssertThrowsError(try s.tile(image: "h", tile: tile, format: .jpeg)) { error in
                XCTAssertTrue("\(error)".contains("truncated file"), "\(error)")
            }
        }
    }

    func testACutShortSourceServesTheRowsAboveTheCut() throws {
        let bytes = try Fixtures.bytes("baseline.jpg")
        let path = try Fixtures.settled(Array(bytes.prefix(bytes.count * 3 / 4)), name: "half.jpg")
        let s = try service(["h": path])
        let rows = try XCTUnwrap(ImageOpener.open(path).info.cutShort).rows
        XCTAssertTrue((257 ..< 453).contains(rows), "\(rows)")
        let bottom = try ImageDecoder.decode(try s.tile(image: "h", tile: TileCoordinate(level: 10, x: 0, y: 1), format: .png).tile.bytes)
        XCTAssertEqual(bottom.height, rows - 256, "the last tile ends where the rows do")
        XCTAssertNoThrow(try s.tile(image: "h", tile: TileCoordinate(level: 10, x: 0, y: 0), format: .jpeg))
    }

}
