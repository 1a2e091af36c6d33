import Foundation
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport
@testable import TileGeometry

/// Tiles made on demand against `vips dzsave`'s tile at the same level/x/y: PSNR ≥ 32 dB.
final class DzsaveComparisonTests: XCTestCase {
    func testOnDemandTilesMatchDzsave() throws {
        for fixture in ["q100-444.jpg", "rgb.png", "orient-6.jpg"] {
            let name = (fixture as NSString).deletingPathExtension
            let vips = try Vips.dzsave(Fixtures.path(fixture), name: name, suffix: ".png")
            let options = TileOptions(rasterDirectory: NSTemporaryDirectory())
            let image = try PyramidImage(id: name, path: Fixtures.path(fixture), options: options)
            let service = TileService(images: [image], options: options)
            let geometry = try image.current().geometry
            var compared = 0
            for level in 0 ... geometry.maxLevel {
                let (columns, rows) = geometry.tileCount(level)
                for y in 0 ..< rows { for x in 0 ..< columns {
                    let ours = try service.tile(image: name, tile: TileCoordinate(level: level, x: x, y: y), format: .png).tile
                    let oursPixels = try ImageOpener.open(try Fixtures.temporary(ours.bytes, name: "ours-\(name).png")).decodeAll()
                    let theirs = try ImageOpener.open(vips.appendingPathComponent("\(name)_files/\(level)/\(x)_\(y).png").path).decodeAll()
                    XCTAssertEqual(oursPixels.width, theirs.width, "\(fixture) \(level)/\(x)/\(y)")
                    XCTAssertEqual(oursPixels.height, theirs.height, "\(fixture) \(level)/\(x)/\(y)")
                    guard oursPixels.width == theirs.width, oursPixels.height == theirs.height else { continue }
                    let psnr = PixelCompare.psnr(oursPixels, theirs.channels == oursPixels.channels ? theirs : theirs.flattened())
                    XCTAssertGreaterThanOrEqual(psnr, 32, "\(fixture) tile \(level)/\(x)/\(y)")
                    compared += 1
                }}
            }
            XCTAssertEqual(compared, geometry.totalTiles)
        }
    }
}
