import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// Every variant decodes to what libvips decodes: PNG exactly (tagged ones, converted to sRGB, within 1 level:
/// libvips converts through floats), JPEG within a mean difference of 1.5.
final class ReferenceDecodeTests: XCTestCase {
    func testFixturesExist() {
        let names = Fixtures.allFormats
        for expected in ["progressive.jpg", "gray.jpg", "cmyk.jpg", "orient-6.jpg", "restart.jpg", "q100-444.jpg",
                         "rgba.png", "gray16.png", "rgb16.png", "palette.png", "palette-trns.png", "interlaced.png",
                         "tiny-1x1.png", "wide-9024x3.jpg", "gray-alpha.png", "prophoto.jpg", "eci-rgb-v2.jpg",
                         "adobe-rgb.png", "adobe-exif-r03.jpg", "prophoto16.png", "prophoto16-interlaced.png",
                         "photo.webp", "webp-alpha.webp", "webp-orient-6.webp", "webp-prophoto.webp", "photo.heic",
                         "heic-prophoto.heic", "photo.avif", "avif-alpha.avif"] {
            XCTAssertTrue(names.contains(expected), "fixture \(expected) missing from \(Fixtures.directory.path)")
        }
    }

    func testEveryVariantMatchesLibvips() throws {
        XCTAssertGreaterThan(Fixtures.allFormats.count, 20)
        for name in Fixtures.allFormats {
            let source = try ImageOpener.open(Fixtures.path(name))
            let ours = try source.decodeAll()
            let reference = try Fixtures.reference(name)
            XCTAssertEqual(ours.width, reference.width, name)
            XCTAssertEqual(ours.height, reference.height, name)
            XCTAssertEqual(ours.channels, reference.channels, name)
            guard ours.width == reference.width, ours.height == reference.height, ours.channels == reference.channels else { continue }
            if name.hasSuffix(".png") {
                guard let png = source as? PNGSource else { XCTFail("\(name) is not read by PNGSource"); continue }
                XCTAssertLessThanOrEqual(PixelCompare.maxDifference(ours, reference), png.colour == nil ? 0 : 1,
                                         "\(name) differs from libvips")
            } else {
                let mad = PixelCompare.meanAbsoluteDifference(ours, reference)
                XCTAssertLessThanOrEqual(mad, 1.5, "\(name): mean absolute difference \(mad)")
            }
        }
    }

    func testHeaderFacts() throws {
        let progressive = try ImageOpener.open(Fixtures.path("progressive.jpg")).info
        XCTAssertTrue(progressive.progressive)
        XCTAssertEqual(progressive.format, .jpeg)
        XCTAssertEqual(try ImageOpener.open(Fixtures.path("restart.jpg")).info.restartInterval > 0, true)
        XCTAssertEqual(try ImageOpener.open(Fixtures.path("cmyk.jpg")).info.colorSpace, "cmyk")
        XCTAssertEqual(try ImageOpener.open(Fixtures.path("gray16.png")).info.bitDepth, 16)
        XCTAssertEqual(try ImageOpener.open(Fixtures.path("palette-trns.png")).info.channels, 4)
        XCTAssertEqual(try ImageOpener.open(Fixtures.path("palette.png")).info.channels, 3)
        XCTAssertTrue(try ImageOpener.open(Fixtures.path("interlaced.png")).info.progressive)
        let tiny = try ImageOpener.open(Fixtures.path("tiny-1x1.png"))
        XCTAssertEqual(try tiny.decodeAll().bytes, [77, 77, 77])
    }

    func testOrientationIsAppliedForAllEight() throws {
        let upright = try ImageOpener.open(Fixtures.path("orient-1.jpg")).decodeAll()
        XCTAssertEqual(upright.width, 701)
        for o in 1 ... 8 {
            let source = try ImageOpener.open(Fixtures.path("orient-\(o).jpg"))
            XCTAssertEqual(source.info.orientation.rawValue, o)
            let expectSwap = o >= 5
            XCTAssertEqual(source.info.width, expectSwap ? 453 : 701, "orientation \(o)")
            XCTAssertEqual(source.info.height, expectSwap ? 701 : 453, "orientation \(o)")
            let ours = try source.decodeAll()
            let reference = try Fixtures.reference("orient-\(o).jpg")
            XCTAssertEqual(PixelCompare.maxDifference(ours, reference), 0, "orientation \(o) differs from vips autorot")
        }
    }
}
