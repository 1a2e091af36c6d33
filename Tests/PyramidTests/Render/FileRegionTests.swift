import Foundation
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport
@testable import TileGeometry

/// A region of a level read straight from the file (a tiled TIFF's, a JPEG 2000's) is the window under it decoded
/// from the file and resampled: the same bytes as resampling that level decoded whole, whichever of our tiles the
/// window cuts, and whether or not some of them are in the cache already.
final class FileRegionTests: XCTestCase {
    func testARegionIsTheLevelDecodedWholeThenResampled() throws {
        for name in ["pyramid-jpeg-q85.tif", "pyramid-jpeg.tif", "tiled-deflate.tif", "tiled-lossy.jp2"] {
            let options = TileOptions(rasterDirectory: NSTemporaryDirectory())
            let image = try PyramidImage(id: "a", path: Fixtures.path(name), options: options)
            let service = TileService(images: [image], options: options)
            let snapshot = try image.current()
            let g = snapshot.geometry
            // Within a level's scale and between levels, across tile edges of ours (256) and the file's (128).
            for (rect, w, h) in [(PixelRect(x: 37, y: 101, width: 300, height: 190), 300, 190),
                                 (PixelRect(x: 200, y: 250, width: 401, height: 180), 250, 112),
                                 (PixelRect(x: 5, y: 3, width: g.width - 9, height: g.height - 7), 333, 211)] {
                let plan = RegionPlan(rect: rect, outWidth: w, outHeight: h, geometry: g, channels: 3)
                XCTAssertTrue(snapshot.readsDirectly(plan.level), "\(name): level \(plan.level) is read from the file")
                let level = try snapshot.source.decodeAll(shrink: g.shrink(ofLevel: plan.level))
                let expected = Resampler.resample(level, originX: 0, originY: 0, columns: plan.columns(0 ..< w),
                                                  rows: plan.rows(0 ..< h))
                _ = try service.tile(image: "a", tile: TileCoordinate(level: plan.level, x: 1, y: 0), format: .jpeg)
                let ours = try service.region(rect, outWidth: w, outHeight: h, of: image, in: snapshot)
                XCTAssertTrue(ours == expected, "\(name) \(rect) to \(w)×\(h): up to \(PixelCompare.maxDifference(ours, expected)) apart")
            }
        }
    }
}
