import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// A JPEG 2000's ICC profile (a `colr` box of method 2) is read with its header and converted or kept as for JPEG.
final class JP2ProfileTests: XCTestCase {
    private static let proPhoto = "/usr/share/color/icc/colord/ProPhotoRGB.icc"

    /// `jp2` with its `colr` box replaced by one carrying `profile`.
    private func tagged(_ jp2: [UInt8], profile: [UInt8]) throws -> [UInt8] {
        func be32(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 << 8 | Int($1) } }
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let n = UInt32(body.count + 8)
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + body
        }
        var out = [UInt8](), at = 0
        while at + 8 <= jp2.count {
            let length = be32(jp2[at ..< at + 4]), type = String(decoding: jp2[at + 4 ..< at + 8], as: UTF8.self)
            let end = length == 0 ? jp2.count : at + length
            if type == "jp2h" {
                var inner = [UInt8](), i = at + 8
                while i + 8 <= end {
                    let n = be32(jp2[i ..< i + 4]), t = String(decoding: jp2[i + 4 ..< i + 8], as: UTF8.self)
                    inner += t == "colr" ? box("colr", [2, 0, 0] + profile) : Array(jp2[i ..< i + n])
                    i += n
                }
                out += box("jp2h", inner)
            } else {
                out += jp2[at ..< end]
            }
            at = end
        }
        return out
    }

    func testTheProfileIsConvertedOrKept() throws {
        let profile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.proPhoto)))
        let path = try Fixtures.temporary(try tagged(try Fixtures.bytes("lossless.jp2"), profile: profile), name: "prophoto.jp2")
        let plain = try ImageOpener.open(Fixtures.path("lossless.jp2"))
        let source = try XCTUnwrap(try ImageOpener.open(path) as? JP2Source)
        XCTAssertNil(plain.structure.profile)
        XCTAssertEqual(source.structure.profile, "embedded ICC profile, converted to sRGB")
        // sRGB pixels read as ProPhoto become more saturated: far from the untagged decode.
        let mad = PixelCompare.meanAbsoluteDifference(try source.decodeAll(), try plain.decodeAll())
        XCTAssertGreaterThan(mad, 5, "the profile was not applied")
        let kept = try ImageOpener.open(path, limits: ImageLimits(keepsColourProfiles: true))
        XCTAssertEqual(kept.keptProfile, profile)
        XCTAssertTrue(try kept.decodeAll().bytes == plain.decodeAll().bytes, "kept colours are the file's own")
    }

    /// The box walk that finds the profile meets cut and lying boxes: an error or the image, never a crash.
    func testBrokenColourBoxes() throws {
        let profile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.proPhoto)))
        let file = try tagged(try Fixtures.bytes("lossless.jp2"), profile: profile)
        let colr = try XCTUnwrap(file.firstRange(of: Array("colr".utf8))).lowerBound - 4
        for (k, cut) in [colr + 2, colr + 9, colr + 200, colr + profile.count].enumerated() {
            let path = try Fixtures.temporary(Array(file.prefix(cut)), name: "cut-colr-\(k).jp2")
            XCTAssertThrowsError(try ImageOpener.open(path).decodeAll(), "cut at \(cut)")
        }
        for length: UInt32 in [0xFFFF_FFF0, 1, 9] {   // past the file, a 64-bit length with none after it, too short
            var lying = file
            lying.replaceSubrange(colr ..< colr + 4, with: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            let path = try Fixtures.temporary(lying, name: "lying-colr-\(length).jp2")
            do { _ = try ImageOpener.open(path).decodeAll() } catch { XCTAssertTrue(error is ImageSourceError, "\(error)") }
        }
    }
}
