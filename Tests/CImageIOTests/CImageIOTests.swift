import CImageIO
import CImageIO.Testing
import Glibc
import XCTest

/// The C ABI on its own: errors come back as codes and messages, never as exit() or stderr output.
final class CImageIOTests: XCTestCase {
    private func withFile(_ bytes: [UInt8], _ body: (UnsafePointer<tsio_input>) -> Void) {
        var template = Array("/tmp/cimageio-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        unlink(String(cString: template))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var input = tsio_input(fd: fd, read: nil, context: nil, size: 0)
        body(&input)
        close(fd)
    }

    private func message(_ st: tsio_status) -> String {
        withUnsafeBytes(of: st.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    func testGarbageAfterJPEGSignatureIsACorruptError() {
        withFile([0xFF, 0xD8, 0xFF, 0x00, 0x01, 0x02, 0x03, 0x04] + [UInt8](repeating: 0x55, count: 100)) { input in
            var st = tsio_status()
            var info = tsio_info()
            XCTAssertNil(tsio_jpeg_open(input, 0, &info, &st))
            XCTAssertNotEqual(Int(st.code), Int(TSIO_OK))
            XCTAssertFalse(message(st).isEmpty)
        }
    }

    func testJPEGEndingInsideTheHeaderIsATruncation() {
        withFile([0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00]) { input in
            var st = tsio_status()
            var info = tsio_info()
            XCTAssertNil(tsio_jpeg_open(input, 0, &info, &st))
            XCTAssertEqual(Int(st.code), Int(TSIO_ERR_TRUNCATED))
            XCTAssertEqual(st.offset, 7)
            XCTAssertEqual(st.file_size, 7)
            XCTAssertEqual(message(st), "JPEG data ends at byte 7")
        }
    }

    func testPNGSignatureWithoutChunksIsATruncation() {
        withFile([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { input in
            var st = tsio_status()
            var info = tsio_info()
            XCTAssertNil(tsio_png_open(input, &info, &st))
            XCTAssertEqual(Int(st.code), Int(TSIO_ERR_TRUNCATED))
        }
    }

    /// An input read through the caller's function (object storage) whose read fails is an I/O error, with the
    /// offset it failed at: never a picture made of the bytes that did not come.
    func testAFailingReadFunctionIsAnIOError() {
        let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00]
        jpegStart.withUnsafeBufferPointer { bytes in
            var input = tsio_input(fd: -1, read: { context, dst, count, offset in
                let source = context!.assumingMemoryBound(to: UInt8.self)
                guard offset < 4 else { errno = EIO; return -1 }
                let n = min(Int(count), 4 - Int(offset))
                dst!.update(from: source + Int(offset), count: n)
                return Int64(n)
            }, context: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), size: 1000)
            var st = tsio_status()
            var info = tsio_info()
            XCTAssertNil(tsio_jpeg_open(&input, 0, &info, &st))
            XCTAssertEqual(Int(st.code), Int(TSIO_ERR_IO))
            XCTAssertEqual(st.file_size, 1000)
        }
    }

    func testExifOrientationParser() {
        // Little-endian TIFF header, one IFD entry: tag 0x0112, SHORT, count 1, value 6.
        let le: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        XCTAssertEqual(tsio_exif_orientation(le, le.count), 6)
        let be: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        XCTAssertEqual(tsio_exif_orientation(be, be.count), 8)
        XCTAssertEqual(tsio_exif_orientation(Array(le.prefix(12)), 12), 1, "an entry cut short is ignored")
        XCTAssertEqual(tsio_exif_orientation([0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F], 8), 1, "an IFD offset past the end is ignored")
    }

    func testEncodeRejectsBadChannelCounts() {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var st = tsio_status()
        let pixels = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(tsio_jpeg_encode(pixels, 2, 2, 8, 2, 85, 1, nil, 0, &out, &size, &st), -1)
        XCTAssertEqual(Int(st.code), Int(TSIO_ERR_ARGUMENT))
        XCTAssertNil(out)
    }
}
