import Foundation
import POSIXSupport
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// TIFF and BigTIFF through libtiff: levels found in pages and SubIFDs, reads from the right level, random access
/// where the file allows it, and the same pixels from every container of the same photo.
final class TIFFSourceTests: XCTestCase {
    private func tiff(_ name: String) throws -> TIFFSource {
        let source = try ImageOpener.open(Fixtures.path(name))
        return try XCTUnwrap(source as? TIFFSource, "\(name) is not read by TIFFSource")
    }

    func testPyramidLevelsComeFromPagesAndSubIFDs() throws {
        // vips halves 701 × 453 until the level fits in one tile of 128 (or 64), sizes rounded down.
        XCTAssertEqual(try tiff("pyramid-jpeg.tif").levels.map(\.factor), [1, 2, 4, 8])
        XCTAssertEqual(try tiff("pyramid-subifd.tif").levels.map(\.factor), [1, 2, 4, 8])
        XCTAssertEqual(try tiff("pyramid-bigtiff.tif").levels.map(\.factor), [1, 2, 4, 8, 16])
        XCTAssertEqual(try tiff("pyramid-subifd.tif").directories.filter { $0.subifd != 0 }.count, 3)
        XCTAssertEqual(try tiff("pyramid-subifd.tif").levels[3].width, 87)
        XCTAssertEqual(try tiff("tiled-deflate.tif").levels.map(\.factor), [1])
        XCTAssertEqual(try tiff("striped-lzw.tif").levels.map(\.factor), [1])
    }

    func testTilesAreReadDirectlyOnlyWhereTheFileIsTiled() throws {
        let pyramid = try tiff("pyramid-bigtiff.tif")
        for shrink in [1, 2, 4, 8, 16, 32, 64] { XCTAssertTrue(pyramid.isRandomAccess(atShrink: shrink), "shrink \(shrink)") }
        let flat = try tiff("tiled-deflate.tif")
        XCTAssertTrue(flat.isRandomAccess(atShrink: 8))
        XCTAssertFalse(flat.isRandomAccess(atShrink: 16), "a flat file's thumbnails come from a pass")
        XCTAssertFalse(try tiff("striped-lzw.tif").isRandomAccess(atShrink: 1))
        XCTAssertEqual(pyramid.level(for: 8).level.factor, 8)
        XCTAssertEqual(pyramid.level(for: 64).level.factor, 16)
        XCTAssertEqual(pyramid.level(for: 64).rest, 4)
    }

    /// A read at a level's shrink comes from that level (vips made it with 2 × 2 averages): within rounding of
    /// the full-size image box-shrunk, and the same size as every other source's.
    func testReductionsComeFromTheLevels() throws {
        let lossless = try tiff("pyramid-subifd.tif")
        let full = try lossless.decodeAll()
        for shrink in [2, 4, 8, 16] {
            let reduced = try lossless.decodeAll(shrink: shrink)
            XCTAssertEqual(reduced.width, (701 + shrink - 1) / shrink)
            XCTAssertEqual(reduced.height, (453 + shrink - 1) / shrink)
            let expected = PixelCompare.boxShrink(full, by: shrink)
            // The last column or row of a floor-sized level repeats its edge: compare the inside.
            let inside = PixelRect(x: 0, y: 0, width: reduced.width - 1, height: reduced.height - 1)
            let mad = PixelCompare.meanAbsoluteDifference(reduced.cropped(to: inside), expected.cropped(to: inside))
            XCTAssertLessThan(mad, 1.0, "shrink \(shrink)")
        }
    }

    /// Any rectangle at any shrink is the same pixels as that rectangle of the whole image at that shrink.
    func testRegionsAgreeWithTheWholeImage() throws {
        for name in ["pyramid-jpeg.tif", "tiled-deflate.tif", "striped-none.tif", "planar-packbits.tif", "tiff-rgba.tif"] {
            let source = try tiff(name)
            for shrink in [1, 2, 4] {
                let whole = try source.decodeAll(shrink: shrink)
                let rect = PixelRect(x: 37 / shrink, y: 101 / shrink, width: 300 / shrink, height: 190 / shrink)
                let region = try source.decode(rect, shrink: shrink)
                XCTAssertTrue(region.bytes == whole.cropped(to: rect).bytes, "\(name) at 1/\(shrink)")
            }
        }
    }

    /// Parts of JPEG tiles are decoded from the tiles' own streams, only as much as each part needs (libjpeg's crop
    /// and skip, a margin of one iMCU kept): many rectangles, at every offset within the 128-pixel tiles, of RGB
    /// (Q 95) and YCbCr 4:2:0 (Q 85) tiles are still the whole decode's bytes.
    func testPartsOfJPEGTilesAreTheWholeTilesPixels() throws {
        var generator = SystemRandomNumberGenerator()
        for name in ["pyramid-jpeg.tif", "pyramid-jpeg-q85.tif"] {
            let source = try tiff(name)
            for shrink in [1, 2] {
                let whole = try source.decodeAll(shrink: shrink)
                for _ in 0 ..< 40 {
                    let x = Int.random(in: 0 ..< whole.width - 1, using: &generator)
                    let y = Int.random(in: 0 ..< whole.height - 1, using: &generator)
                    let rect = PixelRect(x: x, y: y, width: Int.random(in: 1 ... min(200, whole.width - x), using: &generator),
                                         height: Int.random(in: 1 ... min(200, whole.height - y), using: &generator))
                    let region = try source.decode(rect, shrink: shrink)
                    XCTAssertTrue(region.bytes == whole.cropped(to: rect).bytes, "\(name) at 1/\(shrink): \(rect)")
                }
            }
        }
    }

    /// A damaged JPEG tile read in part is what it is read whole: the same rows libjpeg makes up for the damage, or the
    /// same error. (Damage libjpeg stops at, where a part goes to libtiff, is not reached by these: a tile's stream
    /// always ends with its EOI, so libjpeg warns and goes on.)
    func testPartsOfDamagedJPEGTilesAreTheWholeTilesPixels() throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("pyramid-jpeg-q85.tif"))))
        for (k, at) in [0.2, 0.35, 0.5, 0.65].enumerated() {
            let start = Int(Double(bytes.count) * at)
            for i in 0 ..< 48 { bytes[start + i] = k % 2 == 0 ? UInt8(truncatingIfNeeded: i &* 37 &+ 11) : 0xFF }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).tif").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try XCTUnwrap(try ImageOpener.open(path) as? TIFFSource)
        var generator = SystemRandomNumberGenerator()
        var compared = 0
        for _ in 0 ..< 60 {
            let x = Int.random(in: 0 ..< 690, using: &generator), y = Int.random(in: 0 ..< 440, using: &generator)
            let rect = PixelRect(x: x, y: y, width: Int.random(in: 1 ... min(150, 701 - x), using: &generator),
                                 height: Int.random(in: 1 ... min(150, 453 - y), using: &generator))
            // The same pixels through whole tiles: the rectangle widened to the file's 128-pixel grid.
            let x0 = rect.x / 128 * 128, y0 = rect.y / 128 * 128
            let tiles = PixelRect(x: x0, y: y0, width: min(701, (rect.maxX + 127) / 128 * 128) - x0,
                                  height: min(453, (rect.maxY + 127) / 128 * 128) - y0)
            let whole = Result { try source.decode(tiles).cropped(to: PixelRect(x: rect.x - x0, y: rect.y - y0, width: rect.width, height: rect.height)) }
            let part = Result { try source.decode(rect) }
            switch (part, whole) {
            case let (.success(a), .success(b)):
                XCTAssertTrue(a.bytes == b.bytes, "\(rect)")
                compared += 1
            case (.failure, .failure): break
            default: XCTFail("\(rect): read in part \(part), whole \(whole)")
            }
        }
        XCTAssertGreaterThan(compared, 0)
    }

    /// The photo saved as PNG and in every TIFF layout and compression decodes to the same pixels (JPEG ones within
    /// its loss).
    func testEveryContainerHoldsTheSamePhoto() throws {
        let png = try ImageOpener.open(Fixtures.path("rgb.png")).decodeAll()
        for name in ["pyramid-jpeg.tif", "pyramid-subifd.tif", "pyramid-bigtiff.tif", "tiled-deflate.tif", "tiled-zstd.tif",
                     "tiled-webp.tif", "striped-lzw.tif", "striped-none.tif", "planar-packbits.tif", "striped-jpeg.tif"] {
            let ours = try tiff(name).decodeAll()
            let mad = PixelCompare.meanAbsoluteDifference(ours, png)
            // JPEG-compressed ones at quality 95 lose about 1.5 levels on this grainy photo.
            XCTAssertLessThanOrEqual(mad, name.contains("jpeg") ? 2.0 : 0, "\(name): \(mad)")
        }
    }

    func testReadsFromManyThreadsAgree() throws {
        let source = try tiff("pyramid-jpeg.tif")
        let rects = (0 ..< 24).map { PixelRect(x: ($0 * 53) % 500, y: ($0 * 37) % 300, width: 128, height: 96) }
        let serial = try rects.map { try source.decode($0).bytes }
        let parallel = Locked([[UInt8]](repeating: [], count: rects.count))
        DispatchQueue.concurrentPerform(iterations: rects.count * 4) { i in
            let k = i % rects.count
            if let bytes = try? source.decode(rects[k]).bytes { parallel.withLock { $0[k] = bytes } }
        }
        XCTAssertTrue(parallel.withLock { $0 } == serial)
    }

    func testOrientationAndProfileAreHonoured() throws {
        let turned = try tiff("tiff-orient-6.tif")
        XCTAssertEqual(turned.info.orientation.rawValue, 6)
        XCTAssertEqual(turned.info.width, 453)
        let tagged = try tiff("tiff-prophoto.tif")
        guard case .convert? = tagged.colour else { return XCTFail("the ProPhoto profile is not converted") }
    }

    /// Where the first directory is, from a header as it is, as hostile files give it, never a trap.
    func testTheFirstDirectoryIsTakenFromTheHeaderOnly() throws {
        XCTAssertEqual(TIFFSource.firstDirectory([0x49, 0x49, 42, 0, 0x10, 0x27, 0, 0]), 10_000)
        XCTAssertEqual(TIFFSource.firstDirectory([0x4D, 0x4D, 0, 42, 0, 0, 0x27, 0x10]), 10_000)
        XCTAssertEqual(TIFFSource.firstDirectory([0x49, 0x49, 43, 0, 8, 0, 0, 0] + [0, 0, 0, 0, 1, 0, 0, 0]), 1 << 32)
        XCTAssertLessThan(try XCTUnwrap(TIFFSource.firstDirectory([0x49, 0x49, 43, 0, 8, 0, 0, 0] + Array(repeating: 0xFF, count: 8))), 0,
                          "past Int64.max: refused by the reader (negative), not a trap")
        XCTAssertNil(TIFFSource.firstDirectory([0x49, 0x49, 43, 0, 8, 0, 0, 0]), "BigTIFF cut short")
        XCTAssertNil(TIFFSource.firstDirectory([0x49, 0x49, 43, 0, 4, 0, 0, 0] + Array(repeating: 0, count: 8)), "BigTIFF offsets not 8 bytes")
        XCTAssertNil(TIFFSource.firstDirectory([0x49, 0x4D, 42, 0, 8, 0, 0, 0]), "mixed byte order")
        XCTAssertNil(TIFFSource.firstDirectory([0x49, 0x49, 41, 0, 8, 0, 0, 0]))
        XCTAssertNil(TIFFSource.firstDirectory([0x49, 0x49, 42]))
        XCTAssertNil(TIFFSource.firstDirectory([0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0, 0]))
    }
}
