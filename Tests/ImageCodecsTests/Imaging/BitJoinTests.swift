import CImageIO
import CImageIO.Testing
import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// Tiles coded alike are joined by their entropy-coded bits (`tsio_jpeg_join_bits`): the same coefficients as the
/// coefficient join gives, so the same pixels, with nothing decoded into memory or coded again. Tiles the bits cannot
/// join are left to the coefficient join, and a damaged tile is an error, never a broken image.
final class BitJoinTests: XCTestCase {
    private let photo = try! ImageOpener.open(Fixtures.path("rgb.png")).decodeAll() // 701 × 453

    private func join(bits: Bool, _ tiles: [[UInt8]], columns: Int, rows: Int, tileSize: Int, width: Int, height: Int,
                      profile: [UInt8] = []) -> (Int32, [UInt8]) {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var st = tsio_status()
        let all = tiles.flatMap { $0 }, sizes = tiles.map(\.count)
        let result: Int32 = all.withUnsafeBufferPointer { all in
            var offset = 0
            let pointers: [UnsafePointer<UInt8>?] = sizes.map { size in
                defer { offset += size }
                return all.baseAddress! + offset
            }
            return pointers.withUnsafeBufferPointer { p in
                sizes.withUnsafeBufferPointer { s in
                    profile.withUnsafeBufferPointer { icc in
                        (bits ? tsio_jpeg_join_bits : tsio_jpeg_join_coefficients)(
                            p.baseAddress, s.baseAddress, UInt32(columns), UInt32(rows), UInt32(tileSize), UInt32(width),
                            UInt32(height), icc.baseAddress, icc.count, &out, &size, &st)
                    }
                }
            }
        }
        guard let out else { return (result, []) }
        defer { tsio_free(out) }
        return (result, Array(UnsafeBufferPointer(start: out, count: size)))
    }

    /// The ICC profile libjpeg reads from `jpeg`'s APP2 segments.
    private func embeddedProfile(_ jpeg: [UInt8]) -> [UInt8]? {
        var info = tsio_info(), st = tsio_status()
        guard let decoder = jpeg.withUnsafeBufferPointer({ tsio_jpeg_open_mem($0.baseAddress, $0.count, 0, &info, &st) }) else { return nil }
        defer { tsio_jpeg_close(decoder) }
        var data: UnsafeMutablePointer<UInt8>?, size = 0
        guard tsio_jpeg_icc_profile(decoder, &data, &size) == 1, let data else { return nil }
        defer { tsio_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The tiles of `rect` of the photo, `tileSize` square but at its right and bottom edges, each encoded on its own.
    private func tiles(_ rect: PixelRect, tileSize: Int, encode: (PixelBuffer) throws -> [UInt8]) throws -> ([[UInt8]], Int, Int) {
        let columns = (rect.width + tileSize - 1) / tileSize, rows = (rect.height + tileSize - 1) / tileSize
        var out: [[UInt8]] = []
        for r in 0 ..< rows {
            for c in 0 ..< columns {
                let x = rect.x + c * tileSize, y = rect.y + r * tileSize
                let tile = PixelRect(x: x, y: y, width: min(tileSize, rect.maxX - x), height: min(tileSize, rect.maxY - y))
                out.append(try encode(photo.cropped(to: tile)))
            }
        }
        return (out, columns, rows)
    }

    func testBitsGiveTheCoefficientJoinsPixels() throws {
        // Longer than one APP2 segment holds (65,519 bytes), so it is split in two.
        let profile = (0 ..< 70_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let tiff = try ImageOpener.open(Fixtures.path("pyramid-jpeg-q85.tif"))
        let cases: [(String, [[UInt8]], Int, Int, Int, Int, Int, [UInt8])] = try [
            { let (t, c, r) = try tiles(PixelRect(x: 0, y: 0, width: 256, height: 256), tileSize: 128) { try ImageEncoder.jpeg($0, quality: 85) }
              return ("2 × 2 of ours, 4:2:0", t, c, r, 128, 256, 256, []) }(),
            { let (t, c, r) = try tiles(PixelRect(x: 384, y: 256, width: 317, height: 197), tileSize: 128) { try ImageEncoder.jpeg($0, quality: 85) }
              return ("3 × 2 to both edges", t, c, r, 128, 317, 197, []) }(),
            { let (t, c, r) = try tiles(PixelRect(x: 0, y: 128, width: 256, height: 128), tileSize: 128) { try ImageEncoder.jpeg($0, quality: 90, subsample: false) }
              return ("4:4:4, with a profile", t, c, r, 128, 256, 128, profile) }(),
            { let (t, c, r) = try tiles(PixelRect(x: 0, y: 0, width: 200, height: 256), tileSize: 64) { try ImageEncoder.jpeg($0.gray(bitonal: false), quality: 85) }
              return ("gray, 4 × 4 of 64", t, c, r, 64, 200, 256, []) }(),
            ("a TIFF's own tiles (YCbCr, its shared tables)",
             try [(128, 0), (256, 0), (128, 128), (256, 128)].map { try XCTUnwrap(tiff.storedJPEG(PixelRect(x: $0.0, y: $0.1, width: 128, height: 128), shrink: 1)) },
             2, 2, 128, 256, 256, []),
        ]
        for (why, tiles, columns, rows, tileSize, width, height, icc) in cases {
            let (bitsResult, bits) = join(bits: true, tiles, columns: columns, rows: rows, tileSize: tileSize, width: width, height: height, profile: icc)
            let (coefficientsResult, coefficients) = join(bits: false, tiles, columns: columns, rows: rows, tileSize: tileSize,
                                                          width: width, height: height, profile: icc)
            XCTAssertEqual(bitsResult, 1, why)
            XCTAssertEqual(coefficientsResult, 1, why)
            let ours = try ImageDecoder.decode(bits), theirs = try ImageDecoder.decode(coefficients)
            XCTAssertEqual([ours.width, ours.height], [width, height], why)
            XCTAssertTrue(ours == theirs, "\(why): up to \(PixelCompare.maxDifference(ours, theirs)) apart")
            if !icc.isEmpty {
                XCTAssertEqual(embeddedProfile(bits), icc, why)
            }
        }
    }

    func testWhatTheBitsCannotJoinIsLeftToTheCoefficients() throws {
        func vipsTiles(_ options: [String]) throws -> [[UInt8]] {
            try [0, 128].map { x in
                let dir = FileManager.default.temporaryDirectory
                let png = dir.appendingPathComponent("join-\(UUID().uuidString).png").path
                let jpeg = dir.appendingPathComponent("join-\(UUID().uuidString).jpg").path
                defer { try? FileManager.default.removeItem(atPath: png); try? FileManager.default.removeItem(atPath: jpeg) }
                try Data(ImageEncoder.png(photo.cropped(to: PixelRect(x: x, y: 0, width: 128, height: 128)))).write(to: URL(fileURLWithPath: png))
                try Vips.run(["jpegsave", png, jpeg, "--Q", "85"] + options)
                return try [UInt8](Data(contentsOf: URL(fileURLWithPath: jpeg)))
            }
        }
        for (why, options) in [("restart markers", ["--restart-interval", "2"]), ("optimised tables", ["--optimize-coding"])] {
            let tiles = try vipsTiles(options)
            XCTAssertEqual(join(bits: true, tiles, columns: 2, rows: 1, tileSize: 128, width: 256, height: 128).0, 0, why)
            XCTAssertEqual(join(bits: false, tiles, columns: 2, rows: 1, tileSize: 128, width: 256, height: 128).0, 1, why)
        }
        // A tile whose data stops making sense half-way is an error, not a join with made-up rows.
        let a = try ImageEncoder.jpeg(photo.cropped(to: PixelRect(x: 0, y: 0, width: 128, height: 128)), quality: 85)
        var b = try ImageEncoder.jpeg(photo.cropped(to: PixelRect(x: 128, y: 0, width: 128, height: 128)), quality: 85)
        XCTAssertEqual(join(bits: true, [a, b], columns: 2, rows: 1, tileSize: 128, width: 256, height: 128).0, 1)
        b = Array(b.prefix(b.count / 2)) + [0xFF, 0xD9]
        XCTAssertEqual(join(bits: true, [a, b], columns: 2, rows: 1, tileSize: 128, width: 256, height: 128).0, -1, "cut short")
    }
}
