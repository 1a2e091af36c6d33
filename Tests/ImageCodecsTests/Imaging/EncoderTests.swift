import XCTest
@testable import ImageCodecs
import ImageTestSupport

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

    func testWebPRoundTripKeepsAlphaAndTheProfile() throws {
        for name in ["rgb.png", "rgba.png"] {
            let pixels = try ImageOpener.open(Fixtures.path(name)).decodeAll()
            let encoded = try ImageEncoder.webp(pixels, quality: 85)
            XCTAssertEqual(ImageFormat.detect(encoded), .webp)
            XCTAssertTrue(ImageFormat.webp.isComplete(encoded))
            XCTAssertFalse(ImageFormat.webp.isComplete(Array(encoded.dropLast())), "a cut WebP is not whole")
            let decoded = try ImageDecoder.decode(encoded)
            XCTAssertEqual(decoded.channels, pixels.channels, name)
            let psnr = PixelCompare.psnr(decoded, pixels)
            XCTAssertGreaterThan(psnr, 30, "\(name): PSNR \(psnr)")
        }
        let profile = try XCTUnwrap(ColourTransform.adobeRGB)
        let tagged = try ImageEncoder.webp(PixelBuffer(width: 8, height: 8, channels: 3, fill: 90), profile: profile)
        XCTAssertNotNil(tagged.firstRange(of: Array("ICCP".utf8)), "the profile is in an ICCP chunk")
        XCTAssertEqual(try ImageDecoder.decode(tagged).width, 8)
        XCTAssertThrowsError(try ImageEncoder.webp(PixelBuffer(width: 20_000, height: 1, channels: 3)), "over WebP's 16,383")
    }

    func testAVIFRoundTripKeepsAlphaAndTheProfileAndIsCheckedWhole() throws {
        for name in ["rgb.png", "rgba.png"] {
            let pixels = try ImageOpener.open(Fixtures.path(name)).decodeAll()
            let encoded = try ImageEncoder.avif(pixels, quality: 85)
            XCTAssertEqual(ImageFormat.detect(encoded), .avif)
            XCTAssertTrue(ImageFormat.avif.isComplete(encoded))
            XCTAssertFalse(ImageFormat.avif.isComplete(Array(encoded.dropLast())), "a cut AVIF is not whole")
            XCTAssertFalse(ImageFormat.avif.isComplete(encoded + [0, 0]), "nor one with bytes after its last box")
            let decoded = try ImageDecoder.decode(encoded)
            XCTAssertEqual(decoded.channels, pixels.channels, name)
            XCTAssertEqual(decoded.width, pixels.width, name)
            let psnr = PixelCompare.psnr(decoded, pixels)
            XCTAssertGreaterThan(psnr, 30, "\(name): PSNR \(psnr)")
        }
        let profile = try XCTUnwrap(ColourTransform.adobeRGB)
        let tagged = try ImageEncoder.avif(PixelBuffer(width: 8, height: 8, channels: 3, fill: 90), profile: profile)
        XCTAssertNotNil(tagged.firstRange(of: Array("prof".utf8)), "the profile is in a colr box")
        XCTAssertEqual(try ImageDecoder.decode(tagged).width, 8)
        XCTAssertThrowsError(try ImageDecoder.decode(Array(tagged.prefix(tagged.count / 2))), "half an AVIF is an error")
    }

    func testAVIFQualityFollowsTheMeasuredTable() {
        XCTAssertEqual(AVIFQuality.avif(forJPEG: 100), 100)
        XCTAssertEqual(AVIFQuality.avif(forJPEG: 0), 0)
        for point in AVIFQuality.table.points { XCTAssertEqual(AVIFQuality.avif(forJPEG: point.jpeg), point.other) }
        XCTAssertEqual(AVIFQuality.avif(forJPEG: 80), 59, "linear between 75 → 55 and 85 → 63")
        XCTAssertEqual((1 ... 100).map(AVIFQuality.avif(forJPEG:)), (1 ... 100).map(AVIFQuality.avif(forJPEG:)).sorted(), "monotonic")
    }

    func testSourceFormatsAreTheirSignatures() {
        func head(_ text: String, _ brand: String) -> [UInt8] { [0, 0, 0, 0x18] + Array("ftyp".utf8) + Array(brand.utf8) }
        XCTAssertEqual(SourceFormat.detect(head("", "heic")), .heic)
        XCTAssertEqual(SourceFormat.detect(head("", "mif1")), .heic)
        XCTAssertEqual(SourceFormat.detect(head("", "avif")), .avif)
        XCTAssertNil(SourceFormat.detect(head("", "isom")), "an MP4 is not a photo")
        XCTAssertEqual(SourceFormat.detect(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)), .webp)
        XCTAssertEqual(SourceFormat.unreadableFormat(Array("GIF89a".utf8) + [0, 0, 0, 0, 0, 0]), "GIF")
        XCTAssertEqual(SourceFormat.unreadableFormat(head("", "crx ")), "Canon raw")
        XCTAssertEqual(SourceFormat.unreadableFormat(fileName: "/a/b/IMG_1.NEF"), "Nikon raw")
        XCTAssertNil(SourceFormat.unreadableFormat(fileName: "/a.b/c"))
        for ext in ["jph", "jhc", "heic", "HEIF", "avif", "webp", "jfif"] { XCTAssertNotNil(SourceFormat(fileExtension: ext), ext) }
    }

    func testWebPQualityFollowsTheMeasuredTable() {
        XCTAssertEqual(WebPQuality.webp(forJPEG: 85), 81)
        XCTAssertEqual(WebPQuality.webp(forJPEG: 75), 73)
        XCTAssertEqual(WebPQuality.webp(forJPEG: 80), 77)
        XCTAssertEqual(WebPQuality.webp(forJPEG: 100), 100)
        XCTAssertEqual(WebPQuality.webp(forJPEG: 1), 0)
        XCTAssertEqual((1 ... 100).map(WebPQuality.webp(forJPEG:)), (1 ... 100).map(WebPQuality.webp(forJPEG:)).sorted(), "monotonic")
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
