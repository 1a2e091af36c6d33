import CImageIO
import XCTest

/// The WebP decoder's handle: all rows at once, the same rows in pieces, and a cut stream refused.
final class WebPHandleTests: XCTestCase {
    private func encoded(width: Int, height: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0 ..< height { for x in 0 ..< width { for c in 0 ..< 3 { pixels[(y * width + x) * 3 + c] = UInt8((x * 7 + y * 3 + c * 50) & 255) } } }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var st = tsio_status()
        XCTAssertEqual(tsio_webp_encode(pixels, UInt32(width), UInt32(height), width * 3, 3, 80, 4, nil, 0, &out, &size, &st), 0)
        defer { tsio_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    private func read(_ data: [UInt8], pieces: [UInt32]) throws -> (info: tsio_info, rows: [Int64], pixels: [UInt8]) {
        var info = tsio_info()
        var st = tsio_status()
        let handle = try XCTUnwrap(tsio_webp_open_mem(data, data.count, &info, &st))
        defer { tsio_webp_close(handle) }
        let rowBytes = Int(info.width) * Int(info.channels)
        var pixels = [UInt8](repeating: 0, count: rowBytes * Int(info.height))
        var rows: [Int64] = []
        var at = 0
        for piece in pieces {
            let n = pixels.withUnsafeMutableBufferPointer { tsio_webp_read(handle, $0.baseAddress! + at * rowBytes, rowBytes, piece, &st) }
            rows.append(n)
            if n > 0 { at += Int(n) }
        }
        return (info, rows, pixels)
    }

    func testRowsInPiecesAreTheWholePicture() throws {
        let data = try encoded(width: 37, height: 23)
        let whole = try read(data, pieces: [23])
        XCTAssertEqual(whole.info.width, 37)
        XCTAssertEqual(whole.info.height, 23)
        XCTAssertEqual(whole.info.channels, 3)
        XCTAssertEqual(whole.rows, [23])
        let pieces = try read(data, pieces: [5, 10, 100, 1])
        XCTAssertEqual(pieces.rows, [5, 10, 8, 0], "the last piece stops at the picture's end; past it, nothing")
        XCTAssertEqual(pieces.pixels, whole.pixels)
        XCTAssertGreaterThan(Set(whole.pixels).count, 50)
    }

    func testACutStreamIsAnErrorNotAPartPicture() throws {
        let data = try encoded(width: 64, height: 64)
        var info = tsio_info()
        var st = tsio_status()
        let cut = Array(data.prefix(data.count / 2))
        if let handle = tsio_webp_open_mem(cut, cut.count, &info, &st) {
            defer { tsio_webp_close(handle) }
            var pixels = [UInt8](repeating: 0, count: 64 * 64 * 3)
            XCTAssertEqual(pixels.withUnsafeMutableBufferPointer { tsio_webp_read(handle, $0.baseAddress, 64 * 3, 64, &st) }, -1)
            XCTAssertEqual(Int(st.code), Int(TSIO_ERR_CORRUPT))
        }
        XCTAssertNil(tsio_webp_open_mem(Array(data.prefix(8)), 8, &info, &st), "eight bytes are no WebP")
    }
}
