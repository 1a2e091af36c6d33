import Foundation
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport

/// Outputs larger than a quarter of the render budget are made in bands into a spooled file; the result must
/// be the image the whole render gives, for every mirror and turn.
final class BandedRegionTests: XCTestCase {
    private func service(renderBytes: Int) throws -> (TileService, PyramidImage) {
        let options = TileOptions(rasterDirectory: NSTemporaryDirectory(), renderBytes: renderBytes)
        let image = try PyramidImage(id: "a", path: Fixtures.path("rgb.png"), options: options)
        return (TileService(images: [image], options: options), image)
    }

    func testBandsAreBitForBitTheWholeImage() throws {
        let (whole, wholeImage) = try service(renderBytes: 512 << 20)
        let (banded, bandedImage) = try service(renderBytes: 4 << 20)
        let snapshot = try wholeImage.current(), bandedSnapshot = try bandedImage.current()
        let g = snapshot.geometry
        // Shrinking (area weights) across a level, and growing (linear) past full resolution.
        let all = [(false, 0), (true, 0), (false, 1), (true, 1), (false, 2), (false, 3)]
        let cases = [(PixelRect(x: 37, y: 11, width: g.width - 50, height: g.height - 20), 501, 389, all),
                     (PixelRect(x: 300, y: 200, width: 180, height: 140), 430, 310, [(false, 0), (true, 3)])]
        for (rect, w, h, transforms) in cases {
            let plan = RegionPlan(rect: rect, outWidth: w, outHeight: h, geometry: g, channels: 3)
            XCTAssertGreaterThan(plan.wholeBytes, banded.renderBudget.capacity / 4, "the small budget must band this")
            // Warm both caches, so both read the same (JPEG-decoded) tiles; a first render uses its raw pixels.
            _ = try whole.region(plan, columns: 0 ..< w, rows: 0 ..< h, of: wholeImage, in: snapshot)
            _ = try banded.region(plan, columns: 0 ..< w, rows: 0 ..< h, of: bandedImage, in: bandedSnapshot)
            for (mirror, turns) in transforms {
                let transform = PixelTransform(mirror: mirror, quarterTurns: turns)
                let expected = transform.apply(try whole.region(plan, columns: 0 ..< w, rows: 0 ..< h, of: wholeImage, in: snapshot))
                let output = try banded.encodedRegion(plan, transform: transform, format: .png, of: bandedImage, in: bandedSnapshot, limit: .none)
                guard case .file = output else { return XCTFail("expected a spooled, banded output for \(rect)") }
                let ours = try ImageDecoder.decode(try output.readAll())
                XCTAssertEqual(ours.width, expected.width)
                XCTAssertTrue(ours == expected, "mirror \(mirror), \(turns) turns: differs by up to \(PixelCompare.maxDifference(ours, expected))")
            }
        }
        XCTAssertEqual(banded.renderBudget.usage.inUse, 0, "every lease was given back")
        XCTAssertLessThanOrEqual(banded.renderBudget.usage.peak, banded.renderBudget.capacity)
    }

    func testBandedJPEGAndGrayDecode() throws {
        let (banded, image) = try service(renderBytes: 4 << 20)
        let snapshot = try image.current()
        let g = snapshot.geometry
        let plan = RegionPlan(rect: PixelRect(x: 0, y: 0, width: g.width, height: g.height), outWidth: g.width, outHeight: g.height,
                              geometry: g, channels: 3)
        let output = try banded.encodedRegion(plan, transform: PixelTransform(tone: .gray), format: .jpeg, of: image, in: snapshot, limit: .none)
        let pixels = try ImageDecoder.decode(try output.readAll())
        XCTAssertEqual([pixels.width, pixels.height], [g.width, g.height])
        let expected = try banded.region(plan.rect, outWidth: g.width, outHeight: g.height, of: image, in: snapshot).gray(bitonal: false)
        XCTAssertLessThan(PixelCompare.meanAbsoluteDifference(pixels.gray(bitonal: false), expected), 3)
    }

    func testAnOutputWhoseSingleBandDoesNotFitIsRefusedNamingTheLimit() throws {
        let (s, image) = try service(renderBytes: 1 << 20)
        let snapshot = try image.current()
        let g = snapshot.geometry
        let plan = RegionPlan(rect: PixelRect(x: 0, y: 0, width: g.width, height: g.height), outWidth: 60_000, outHeight: 50,
                              geometry: g, channels: 3)
        XCTAssertThrowsError(try s.encodedRegion(plan, transform: .none, format: .png, of: image, in: snapshot, limit: .none)) { error in
            guard case RenderBudgetError.tooLarge = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("render budget is 1 MB (--render-memory-mb)"), "\(error)")
        }
    }
}
