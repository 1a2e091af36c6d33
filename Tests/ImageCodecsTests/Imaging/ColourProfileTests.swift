import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// Embedded ICC profiles: converted to sRGB when sound; when broken or hostile, ignored with a warning and the
/// image decoded as if untagged, never a crash.
final class ColourProfileTests: XCTestCase {
    private func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0 ... bytes.count - needle.count).first { Array(bytes[$0 ..< $0 + needle.count]) == needle }
    }

    /// The whole image and the warnings its decode reported.
    private func decode(_ bytes: [UInt8], name: String) throws -> (PixelBuffer, DecodeWarnings) {
        let source = try ImageOpener.open(try Fixtures.temporary(bytes, name: name))
        let (w, h) = source.size(shrink: 1)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let warnings = try source.decode(PixelRect(x: 0, y: 0, width: w, height: h), shrink: 1, bandRows: 64) { band in
            let start = band.y * band.width * band.channels
            out.replaceSubrange(start ..< start + band.bytes.count, with: band.bytes)
        }
        return (PixelBuffer(width: w, height: h, channels: 3, bytes: out), warnings)
    }

    /// The tagged photo with its APP2 segment renamed APP3: the same pixels, untagged.
    private func untagged(_ bytes: [UInt8]) throws -> [UInt8] {
        var copy = bytes
        let app2 = try XCTUnwrap(find([0xFF, 0xE2], in: copy))
        copy[app2 + 1] = 0xE3
        return copy
    }

    func testAProPhotoPhotoIsConvertedAndDiffersFromItsNumbers() throws {
        let tagged = try Fixtures.bytes("prophoto.jpg")
        let (converted, warnings) = try decode(tagged, name: "prophoto.jpg")
        let (raw, _) = try decode(try untagged(tagged), name: "prophoto-untagged.jpg")
        XCTAssertEqual(warnings.count, 0, warnings.first ?? "")
        // ProPhoto numbers shown as sRGB are washed out: the conversion moves them by several levels on average.
        XCTAssertGreaterThan(PixelCompare.meanAbsoluteDifference(converted, raw), 4)
    }

    func testBrokenAndHostileProfilesAreIgnoredWithAWarning() throws {
        let tagged = try Fixtures.bytes("prophoto.jpg")
        let header = try XCTUnwrap(find(Array("ICC_PROFILE\0".utf8), in: tagged))
        let profile = header + 14 // after the name, the chunk's number and the count of chunks
        let (expected, _) = try decode(try untagged(tagged), name: "plain.jpg")
        var cases: [(String, [UInt8])] = []
        var size = tagged
        size[profile + 2] ^= 0x10 // the profile's own size field
        cases.append(("wrong-size.jpg", size))
        var count = tagged
        count[header + 13] = 2 // "one of two chunks": the second never comes
        cases.append(("missing-chunk.jpg", count))
        var tags = tagged
        tags.replaceSubrange(profile + 128 ..< profile + 132, with: [0xFF, 0xFF, 0xFF, 0xF0]) // absurd tag count
        cases.append(("tag-count.jpg", tags))
        var space = tagged
        space.replaceSubrange(profile + 16 ..< profile + 20, with: Array("GRAY".utf8)) // a gray profile on RGB
        cases.append(("gray-on-rgb.jpg", space))
        var offsets = tagged
        for i in stride(from: profile + 132, to: profile + 132 + 12 * 6, by: 12) { // tag offsets far outside
            offsets.replaceSubrange(i + 4 ..< i + 8, with: [0x7F, 0xFF, 0xFF, 0x00])
        }
        cases.append(("tag-offsets.jpg", offsets))
        for (name, bytes) in cases {
            let (pixels, warnings) = try decode(bytes, name: name)
            XCTAssert(pixels == expected, "\(name): not decoded as untagged")
            if name != "missing-chunk.jpg" {
                XCTAssertEqual(warnings.first?.contains("embedded ICC profile ignored"), true, "\(name): \(String(describing: warnings.first))")
            }
        }
    }

    /// A PNG chunk: length, type, data, CRC.
    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = CRC32.checksum(body)
        let length = UInt32(data.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// A PNG whose gAMA chunk says its samples are linear (gamma 1.0) and no iCCP: shown in sRGB, each value is
    /// the sRGB encoding of the linear one (0.5 becomes 188), within lcms2's rounding; with gAMA 1/2.2 (sRGB's
    /// usual neighbour) nothing changes.
    func testPNGGammaWithoutAProfileIsHonoured() throws {
        var ramp = PixelBuffer(width: 256, height: 2, channels: 3)
        for x in 0 ..< 256 { for y in 0 ..< 2 { for c in 0 ..< 3 { ramp.bytes[(y * 256 + x) * 3 + c] = UInt8(x) } } }
        let png = try ImageEncoder.encode(ramp, as: .png)
        let ihdrEnd = 8 + 8 + 13 + 4
        for (gamma, expect) in [(100_000, { (v: Double) -> Double in v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }),
                                (45_455, { (v: Double) -> Double in v })] {
            let g = UInt32(gamma)
            let tagged = Array(png[..<ihdrEnd]) + chunk("gAMA", [UInt8(g >> 24), UInt8(g >> 16 & 0xFF), UInt8(g >> 8 & 0xFF), UInt8(g & 0xFF)])
                + Array(png[ihdrEnd...])
            let (pixels, warnings) = try decode(tagged, name: "gamma-\(gamma).png")
            XCTAssertEqual(warnings.count, 0, warnings.first ?? "")
            var worst = 0.0
            for x in 0 ..< 256 {
                let wanted = 255 * expect(Double(x) / 255)
                for c in 0 ..< 3 { worst = max(worst, abs(Double(pixels.bytes[x * 3 + c]) - wanted)) }
            }
            XCTAssertLessThanOrEqual(worst, 2.5, "gAMA \(gamma): off by up to \(worst)")
        }
    }

    /// A 16-bit PNG of linear light (gAMA 1.0) ramping through the darkest quarter: each sample is converted at
    /// full depth, so it lands within a level of the sRGB encoding of its own value. Rounded to 8 bits first, the
    /// darkest steps would be 256 sixteen-bit codes wide, and sRGB's steep start would show them as jumps of up
    /// to 13 levels.
    func testSixteenBitSamplesAreConvertedBeforeTheyAreRounded() throws {
        let width = 4096
        var row: [UInt8] = [0]
        for x in 0 ..< width {
            let v = UInt16(x * 4)
            for _ in 0 ..< 3 { row += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        }
        let raw = row + row
        /* zlib of stored (uncompressed) deflate blocks: no encoder needed for a test image. */
        var zlib: [UInt8] = [0x78, 0x01]
        var at = 0
        while at < raw.count {
            let n = min(65_535, raw.count - at)
            zlib += [at + n == raw.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)]
            zlib += raw[at ..< at + n]
            at += n
        }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        let adler = b << 16 | a
        zlib += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        let w = UInt32(width)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", [UInt8(w >> 24), UInt8(w >> 16 & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w & 0xFF), 0, 0, 0, 2, 16, 2, 0, 0, 0])
            + chunk("gAMA", [0, 1, 0x86, 0xA0]) + chunk("IDAT", zlib) + chunk("IEND", [])
        let (pixels, warnings) = try decode(png, name: "linear16.png")
        XCTAssertEqual(warnings.count, 0, warnings.first ?? "")
        var worst = 0.0
        for x in 0 ..< width {
            let v = Double(x * 4) / 65_535
            let wanted = 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
            for c in 0 ..< 3 { worst = max(worst, abs(Double(pixels.bytes[x * 3 + c]) - wanted)) }
        }
        XCTAssertLessThanOrEqual(worst, 1.0, "off by up to \(worst) levels")
    }
}
