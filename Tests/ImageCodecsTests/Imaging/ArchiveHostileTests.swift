import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// Broken and hostile TIFF and JPEG 2000 files give a typed error quickly, never a crash, a hang or a large
/// allocation: cut files, lying sizes, looping directory chains, absurd tile counts, a 1 × 4,000,000,000 strip,
/// code-stream bombs.
final class ArchiveHostileTests: XCTestCase {
    /// Opens `path`, takes the first stored JPEG tile of every level (a JPEG TIFF's, handed over as they are), reads
    /// its first tile and a tile in the middle at two shrinks; returns the error, which must be an `ImageSourceError`,
    /// within a second.
    @discardableResult
    private func attempt(_ path: String, limits: ImageLimits = ImageLimits(), file: StaticString = #filePath,
                         line: UInt = #line) -> ImageSourceError? {
        let started = Date()
        defer { XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "\(path) took too long", file: file, line: line) }
        do {
            let source = try ImageOpener.open(path, limits: limits)
            let (w, h) = (source.info.width, source.info.height)
            for level in source.structure.levels {
                guard let tw = level.tileWidth, let th = level.tileHeight,
                      let jpeg = try source.storedJPEG(PixelRect(x: 0, y: 0, width: tw, height: th), shrink: level.factor) else { continue }
                _ = try? ImageDecoder.decode(jpeg)
            }
            _ = try source.decode(PixelRect(x: 0, y: 0, width: min(w, 256), height: min(h, 256)))
            _ = try source.decode(PixelRect(x: w / 2, y: h / 2, width: min(w - w / 2, 256), height: min(h - h / 2, 256)))
            let (w4, h4) = source.size(shrink: 4)
            _ = try source.decode(PixelRect(x: 0, y: 0, width: min(w4, 256), height: min(h4, 256)), shrink: 4)
            return nil
        } catch let error as ImageSourceError {
            XCTAssertFalse(error.description.isEmpty, file: file, line: line)
            XCTAssertFalse(error.description.contains("(null)"), error.description, file: file, line: line)
            return error
        } catch {
            XCTFail("untyped error \(error) for \(path)", file: file, line: line)
            return nil
        }
    }

    func testCutFilesAtTenOffsets() throws {
        for name in ["pyramid-jpeg.tif", "pyramid-bigtiff.tif", "striped-lzw.tif", "tiled-deflate.tif", "lossless.jp2",
                     "tiled-lossy.jp2", "codestream.j2k"] {
            let bytes = try Fixtures.bytes(name)
            var failed = 0
            for k in 0 ..< 10 {
                let cut = 8 + (bytes.count * 9 / 10 - 8) * k / 9
                if attempt(try Fixtures.temporary(Array(bytes.prefix(cut)), name: "cut-\(k)-\(name)")) != nil { failed += 1 }
            }
            XCTAssertGreaterThan(failed, 0, "\(name): no cut was noticed")
        }
    }

    func testFlippedBytesNeverCrash() throws {
        var generator = SystemRandomNumberGenerator()
        for name in ["pyramid-jpeg.tif", "pyramid-subifd.tif", "tiff-cmyk.tif", "tiff-bilevel.tif", "tiled-lossy.jp2", "jp2-rgba.jp2"] {
            let original = try Fixtures.bytes(name)
            for round in 0 ..< 12 {
                var bytes = original
                for _ in 0 ..< 8 {
                    // Headers and directories are where the structure is: most flips go to the first and last 4 KB.
                    let span = Int.random(in: 0 ..< 3, using: &generator) == 0 ? bytes.count : min(bytes.count, 4096)
                    let at = Bool.random(using: &generator) ? Int.random(in: 0 ..< span, using: &generator)
                        : bytes.count - 1 - Int.random(in: 0 ..< span, using: &generator)
                    bytes[at] ^= UInt8.random(in: 1 ... 255, using: &generator)
                }
                attempt(try Fixtures.temporary(bytes, name: "flip-\(round)-\(name)"))
            }
        }
    }

    func testLyingSizesAreRefusedBeforeAnyPixel() throws {
        // 4,000,000,000 × 1 and 1 × 4,000,000,000 in one strip, no data behind them.
        for (w, h) in [(4_000_000_000, 1), (1, 4_000_000_000)] as [(UInt32, UInt32)] {
            let path = try Fixtures.temporary(TIFFBytes.striped(width: w, height: h, rowsPerStrip: h, data: [1, 2, 3]),
                                              name: "lying-\(w)x\(h).tif")
            // Refused by the pixel limit, or by libtiff when it cannot make strips of the size.
            XCTAssertNotNil(attempt(path, limits: ImageLimits(maxPixels: 2_000_000_000)), "\(w) × \(h)")
            // Allowed by the limit, the strip's data is simply not there.
            XCTAssertNotNil(attempt(path, limits: ImageLimits(maxPixels: 5_000_000_000)), "\(w) × \(h) read from nothing")
        }
    }

    func testLoopingDirectoryChainsAndAbsurdTileCounts() throws {
        // The first directory's next pointer points at itself: one page, a warning, no endless walk.
        let looping = try Fixtures.temporary(TIFFBytes.striped(width: 8, height: 8, rowsPerStrip: 8, data: [UInt8](repeating: 9, count: 192),
                                                               nextIFDIsSelf: true), name: "looping.tif")
        XCTAssertNil(attempt(looping))
        // A tiled image of 100,000 × 100,000 in 16 × 16 tiles (39 million tiles) whose offset arrays are not there.
        let tiles = try Fixtures.temporary(TIFFBytes.tiled(width: 100_000, height: 100_000, tile: 16), name: "tiles.tif")
        XCTAssertNotNil(attempt(tiles, limits: ImageLimits(maxPixels: 20_000_000_000)))
    }

    func testCodeStreamBombsAreRefused() throws {
        // A SIZ segment claiming 2³¹ − 1 square with one component and nothing after it.
        let huge = try Fixtures.temporary(JP2Bytes.codestream(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF), name: "huge.j2k")
        XCTAssertNotNil(attempt(huge), "a 2³¹ square decoded")
        // A real header over the pixel limit is refused before OpenJPEG decodes anything.
        guard case .tooLarge? = attempt(Fixtures.path("lossless.jp2"), limits: ImageLimits(maxPixels: 100_000, maxPyramidPixels: 100_000)) else {
            return XCTFail("a JPEG 2000 over the pixel limit was not refused")
        }
        let small = try Fixtures.temporary(JP2Bytes.codestream(width: 4000, height: 3000), name: "empty.j2k")
        XCTAssertNotNil(attempt(small), "a code-stream without tiles decoded")
    }
}

/// Hand-made little-endian classic TIFFs for the hostile cases.
enum TIFFBytes {
    private static func entry(_ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: UInt32) -> [UInt8] {
        le16(tag) + le16(type) + le32(count) + le32(value)
    }
    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] { (0 ..< 4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    private static func file(_ entries: [[UInt8]], data: [UInt8], nextIFDIsSelf: Bool = false) -> [UInt8] {
        let ifd: UInt32 = 8
        var out: [UInt8] = [0x49, 0x49, 42, 0] + le32(ifd) + le16(UInt16(entries.count))
        out += entries.flatMap { $0 }
        out += le32(nextIFDIsSelf ? ifd : 0)
        return out + data
    }

    /// One strip of 8-bit RGB at the end of the file.
    static func striped(width: UInt32, height: UInt32, rowsPerStrip: UInt32, data: [UInt8], nextIFDIsSelf: Bool = false) -> [UInt8] {
        let count = 9, dataAt = UInt32(8 + 2 + count * 12 + 4 + 6)
        let entries = [entry(256, 4, 1, width), entry(257, 4, 1, height), entry(258, 3, 1, 8), entry(259, 3, 1, 1),
                       entry(262, 3, 1, 2), entry(273, 4, 1, dataAt), entry(277, 3, 1, 3), entry(278, 4, 1, rowsPerStrip),
                       entry(279, 4, 1, UInt32(truncatingIfNeeded: Int(width) * Int(rowsPerStrip) * 3))]
        return file(entries, data: [8, 0, 8, 0, 8, 0] + data, nextIFDIsSelf: nextIFDIsSelf)
    }

    /// A tiled 8-bit RGB image whose tile offset and byte count arrays point past the end of the file.
    static func tiled(width: UInt32, height: UInt32, tile: UInt32) -> [UInt8] {
        let tiles = ((width + tile - 1) / tile) * ((height + tile - 1) / tile)
        let entries = [entry(256, 4, 1, width), entry(257, 4, 1, height), entry(258, 3, 1, 8), entry(259, 3, 1, 1),
                       entry(262, 3, 1, 2), entry(277, 3, 1, 3), entry(322, 4, 1, tile), entry(323, 4, 1, tile),
                       entry(324, 4, tiles, 0x1000_0000), entry(325, 4, tiles, 0x2000_0000)]
        return file(entries, data: [])
    }
}

/// Hand-made JPEG 2000 code-streams: SOC, then a SIZ segment, then nothing.
enum JP2Bytes {
    static func codestream(width: UInt32, height: UInt32) -> [UInt8] {
        func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: UInt32) -> [UInt8] { (0 ..< 4).reversed().map { UInt8((v >> (8 * $0)) & 0xFF) } }
        var siz = be16(0) + be32(width) + be32(height) + be32(0) + be32(0) + be32(width) + be32(height) + be32(0) + be32(0)
        siz += be16(1) + [7, 1, 1]
        return [0xFF, 0x4F, 0xFF, 0x51] + be16(UInt16(siz.count + 2)) + siz + [0xFF, 0xD9]
    }
}
