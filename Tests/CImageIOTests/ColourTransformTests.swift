import CImageIO
import CImageIO.Testing
import Foundation
import XCTest

/// The matrix/TRC fast path of `tsio_icc_apply` against lcms2's own transform of the same profile, over a grid
/// of colours through the whole RGB cube, and broken profiles refused with a message.
final class ColourTransformTests: XCTestCase {
    private func profile(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/\(name)")))
    }

    private func transform(_ profile: [UInt8], _ layout: Int32) throws -> OpaquePointer {
        var st = tsio_status()
        let t = profile.withUnsafeBufferPointer { tsio_icc_open($0.baseAddress, $0.count, layout, &st) }
        return try XCTUnwrap(t, withUnsafeBytes(of: st.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }

    func testTheFastPathIsWithinALevelOfLcms() throws {
        var grid = [UInt8]()
        for r in stride(from: 0, through: 255, by: 15) { for g in stride(from: 0, through: 255, by: 15) { for b in stride(from: 0, through: 255, by: 15) {
            grid += [UInt8(r), UInt8(g), UInt8(b)]
        } } }
        let pixels = grid.count / 3
        for name in ["ProPhotoRGB.icc", "AdobeRGB1998.icc", "ECI-RGBv2.icc", "WideGamutRGB.icc"] {
            let bytes = try profile(name)
            let fast = try transform(bytes, Int32(TSIO_ICC_RGB)), exact = try transform(bytes, Int32(TSIO_ICC_RGB | TSIO_ICC_EXACT))
            defer { tsio_icc_close(fast); tsio_icc_close(exact) }
            XCTAssertEqual(tsio_icc_is_fast(fast), 1, "\(name) is a matrix/TRC profile")
            XCTAssertEqual(tsio_icc_is_fast(exact), 0)
            var a = [UInt8](repeating: 0, count: grid.count), b = a
            tsio_icc_apply(fast, grid, &a, pixels)
            tsio_icc_apply(exact, grid, &b, pixels)
            let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 1, "\(name): the fast path is off lcms2 by \(worst)")
            XCTAssertNotEqual(a, grid, "\(name): nothing converted")
        }
    }

    func testBrokenProfilesAreRefusedWithAMessage() throws {
        var st = tsio_status()
        let bytes = try profile("AdobeRGB1998.icc")
        let cut = Array(bytes.prefix(200))
        XCTAssertNil(cut.withUnsafeBufferPointer { tsio_icc_open($0.baseAddress, $0.count, Int32(TSIO_ICC_RGB), &st) })
        XCTAssertNotEqual(st.code, 0)
        st = tsio_status()
        XCTAssertNil(bytes.withUnsafeBufferPointer { tsio_icc_open($0.baseAddress, $0.count, Int32(TSIO_ICC_CMYK), &st) })
        let message = withUnsafeBytes(of: st.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        XCTAssertTrue(message.contains("RGB on CMYK"), message)
    }
}
