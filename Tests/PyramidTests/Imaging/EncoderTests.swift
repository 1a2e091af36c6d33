import XCTest
@testable import Pyramid

final class EncoderTests: XCTestCase {
    func testPNGRoundTripIsExactWithAndWithoutAlpha() throws {
        for name in ["rgb.png", "rgba.png"] {
            let pixels = try ImageOpener.open(Fixtures.path(name)).decodeAll()
            let encoded = try ImageEncoder.png(pixels, level: 3)
            XCTAssertEqual(ImageFormat.detect(encoded), .png)
            let path = try Fixtures.temporary(encoded, name: "roundtrip-\(name)")
            XCTAssertEqual(try ImageOpener.open(path).decodeAll(), pixels)
        }
    }

    func testJPEGRoundTripIsClose() throws {
        let pixels = try ImageOpener.open(Fixtures.path("rgb.png")).decodeAll()
        for (quality, subsample, minimum) in [(85, true, 30.0), (95, false, 38.0)] {
            let encoded = try ImageEncoder.jpeg(pixels, quality: quality, subsample: subsample)
            XCTAssertEqual(ImageFormat.detect(encoded), .jpeg)
            let path = try Fixtures.temporary(encoded, name: "roundtrip-\(quality).jpg")
            let decoded = try ImageOpener.open(path).decodeAll()
            let psnr = PixelCompare.psnr(decoded, pixels)
            XCTAssertGreaterThan(psnr, minimum, "quality \(quality): PSNR \(psnr)")
        }
    }

    func testJPEGFlattensAlphaAndEncodesOnePixel() throws {
        let pixel = PixelBuffer(width: 1, height: 1, channels: 4, bytes: [200, 100, 50, 255])
        let path = try Fixtures.temporary(try ImageEncoder.jpeg(pixel, quality: 100, subsample: false), name: "one.jpg")
        let back = try ImageOpener.open(path).decodeAll()
        XCTAssertEqual(back.channels, 3)
        XCTAssertLessThan(PixelCompare.maxDifference(back, PixelBuffer(width: 1, height: 1, channels: 3, bytes: [200, 100, 50])), 4)
    }

    func testEncoderRefusesImpossibleInput() {
        XCTAssertThrowsError(try ImageEncoder.png(PixelBuffer(width: 0, height: 0, channels: 3)))
        XCTAssertThrowsError(try ImageEncoder.jpeg(PixelBuffer(width: 0, height: 5, channels: 3)))
    }
}
