import Foundation
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport
@testable import TileGeometry

/// A JPEG-compressed tiled TIFF holds many tiles exactly as a viewer asks for them: those are handed over as the
/// JPEG they are (the tile's stream with the file's shared tables), and everything else is decoded as before.
final class StoredJPEGTests: XCTestCase {
    /// vips' pyramid of the 701 × 453 photo: JPEG at quality 95 (which vips stores as RGB), 128 px tiles, levels
    /// 1, 2, 4 and 8.
    private let fixture = "pyramid-jpeg.tif"

    private func source() throws -> any ImageSource { try ImageOpener.open(Fixtures.path(fixture)) }

    /// The same pyramid at quality 85, which vips stores as YCbCr with chroma at half resolution, as most are.
    private func ycbcr() throws -> any ImageSource { try ImageOpener.open(Fixtures.path("pyramid-jpeg-q85.tif")) }

    func testAWholeTileOnTheGridIsTheFilesOwnJPEG() throws {
        for source in [try source(), try ycbcr()] {
            try checkStoredTiles(of: source, file: try Data(contentsOf: URL(fileURLWithPath: source.path)))
        }
    }

    private func checkStoredTiles(of source: any ImageSource, file: Data) throws {
        for (rect, shrink) in [(PixelRect(x: 128, y: 256, width: 128, height: 128), 1),
                               (PixelRect(x: 0, y: 0, width: 128, height: 128), 1),
                               (PixelRect(x: 128, y: 0, width: 128, height: 128), 2)] {
            let jpeg = try XCTUnwrap(try source.storedJPEG(rect, shrink: shrink), "\(rect) at \(shrink)")
            XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8])
            XCTAssertEqual(Array(jpeg.suffix(2)), [0xFF, 0xD9])
            XCTAssertTrue(zip(jpeg, jpeg.dropFirst()).contains { $0 == 0xFF && $1 == 0xDB }, "the shared tables are in it")
            // Not encoded again: its scan data and EOI are bytes of the file, as they are.
            XCTAssertNotNil(file.range(of: Data(jpeg.suffix(512))), "\(rect) at \(shrink) is not the file's tile")
            let pixels = try ImageDecoder.decode(jpeg)
            XCTAssertEqual(pixels.width, 128)
            XCTAssertEqual(pixels.height, 128)
            // The same compressed data libtiff decodes: the same pixels, within the two decoders' upsampling.
            let decoded = try source.decode(rect, shrink: shrink)
            XCTAssertLessThan(PixelCompare.meanAbsoluteDifference(pixels, decoded), 0.5, "\(rect) at \(shrink)")
        }
    }

    func testEverythingElseIsDecoded() throws {
        let source = try source()
        let cases: [(PixelRect, Int, String)] = [
            (PixelRect(x: 640, y: 0, width: 61, height: 128), 1, "an edge tile the file pads"),
            (PixelRect(x: 64, y: 0, width: 128, height: 128), 1, "off the file's grid"),
            (PixelRect(x: 0, y: 0, width: 256, height: 256), 1, "larger than the file's tiles"),
            (PixelRect(x: 0, y: 0, width: 44, height: 29), 16, "below the smallest level (shrunk from it)"),
        ]
        for (rect, shrink, why) in cases { XCTAssertNil(try source.storedJPEG(rect, shrink: shrink), why) }
        let tile = PixelRect(x: 0, y: 0, width: 128, height: 128)
        for other in ["pyramid-subifd.tif", "tiled-zstd.tif", "tiff-orient-6.tif", "rgb.png", "baseline.jpg"] {
            XCTAssertNil(try ImageOpener.open(Fixtures.path(other)).storedJPEG(tile, shrink: 1), other)
        }
    }

    /// Through the tile service: a tile URL's answer is the stored JPEG, counted; a WebP tile and a tile whose
    /// grid is not the file's are encoded from decoded pixels.
    func testTheServiceServesStoredTilesAsTheyAre() throws {
        let path = Fixtures.path(fixture)
        let options = TileOptions(tileSize: 128)
        let image = try PyramidImage(id: "p", path: path, options: options)
        let service = TileService(images: [image], options: options)
        let snapshot = try image.current()
        let level = snapshot.geometry.maxLevel - 1
        let answer = try service.tile(image: "p", tile: TileCoordinate(level: level, x: 1, y: 0), format: .jpeg)
        let expected = try XCTUnwrap(try snapshot.source.storedJPEG(PixelRect(x: 128, y: 0, width: 128, height: 128), shrink: 2))
        XCTAssertEqual(answer.tile.bytes, expected)
        XCTAssertEqual(service.statistics().passes.storedJPEGs, 1)
        let webp = try service.tile(image: "p", tile: TileCoordinate(level: level, x: 1, y: 0), format: .webp)
        XCTAssertEqual(try ImageDecoder.decode(webp.tile.bytes).width, 128)
        XCTAssertEqual(service.statistics().passes.storedJPEGs, 1, "a WebP tile is encoded")

        let other = TileOptions(tileSize: 256)
        let wide = TileService(images: [try PyramidImage(id: "p", path: path, options: other)], options: other)
        let tile = try wide.tile(image: "p", tile: TileCoordinate(level: level, x: 0, y: 0), format: .jpeg)
        XCTAssertEqual(try ImageDecoder.decode(tile.tile.bytes).width, 256)
        XCTAssertEqual(wide.statistics().passes.storedJPEGs, 0, "256 px tiles are not the file's 128 px ones")
    }
}
