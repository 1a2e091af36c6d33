import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// EXIF, IPTC-IIM and XMP as cameras, Photoshop and exiftool write them, read from built blocks and files; hostile
/// blocks drop the field they break, never the image, and never crash.
final class MetadataReaderTests: XCTestCase {
    private typealias B = MetadataBuilder

    private static let exif = B.tiff(
        ifd0: [(0x010F, .ascii("Canon")), (0x0110, .ascii("Canon EOS R5")), (0x013B, .ascii("Anna")), (0x8298, .ascii("© Anna"))],
        exif: [(0x829A, .rationals([(1, 250)])), (0x829D, .rationals([(28, 10)])), (0x8827, .short(400)),
               (0x9003, .ascii("2024:06:01 04:30:15")), (0x9011, .ascii("+02:00")), (0x920A, .rationals([(35, 1)])),
               (0xA434, .ascii("RF24-70mm F2.8"))],
        gps: [(1, .ascii("S")), (2, .rationals([(33, 1), (51, 1), (3150, 100)])), (3, .ascii("E")),
              (4, .rationals([(151, 1), (12, 1), (4050, 100)])), (5, .bytes([1], type: 1)), (6, .rationals([(12, 1)]))])

    func testEXIFFieldsInBothByteOrders() {
        for big in [false, true] {
            let block = B.tiff(bigEndian: big, ifd0: [(0x010F, .ascii("NIKON CORPORATION")), (0x0110, .ascii("NIKON Z 8"))],
                               exif: [(0x829A, .rationals([(2, 1)])), (0x8827, .short(64)), (0x9003, .ascii("2023:12:31 23:59:59"))],
                               gps: [(1, .ascii("N")), (2, .rationals([(48, 1), (51, 1), (24, 1)])), (3, .ascii("W")),
                                     (4, .rationals([(2, 1), (21, 1), (0, 1)]))])
            let m = EXIFFields.read(block)
            XCTAssertEqual(m.make, "NIKON CORPORATION")
            XCTAssertEqual(m.model, "NIKON Z 8")
            XCTAssertEqual(m.exposureTime, "2")
            XCTAssertEqual(m.iso, 64)
            XCTAssertEqual(m.dateTaken, "2023-12-31T23:59:59")
            XCTAssertEqual(m.location?.latitude ?? 0, 48.8566667, accuracy: 1e-7)
            XCTAssertEqual(m.location?.longitude ?? 0, -2.35, accuracy: 1e-7)
            XCTAssertNil(m.location?.altitude)
        }
    }

    func testEXIFExposureDateAndPlace() {
        let m = EXIFFields.read(Self.exif)
        XCTAssertEqual(m.exposureTime, "1/250")
        XCTAssertEqual(m.fNumber, 2.8)
        XCTAssertEqual(m.iso, 400)
        XCTAssertEqual(m.focalLength, 35)
        XCTAssertEqual(m.lens, "RF24-70mm F2.8")
        XCTAssertEqual(m.dateTaken, "2024-06-01T04:30:15+02:00")
        XCTAssertEqual(m.creators, ["Anna"])
        XCTAssertEqual(m.copyright, "© Anna")
        XCTAssertEqual(m.location, PhotoMetadata.Location(latitude: -33.85875, longitude: 151.21125, altitude: -12))
    }

    /// A bad offset, an absurd count, a zero denominator, bytes that are not UTF-8, a date of zeros: each drops
    /// its own field; the others are read.
    func testBrokenEXIFFieldsAreDroppedOneByOne() {
        let block = B.tiff(
            ifd0: [(0x010F, .bytes([0x43, 0xFF, 0xFE, 0], type: 2)), (0x0110, .ascii("X100V")),
                   (0x013B, .bytes(Array("Anna\u{1}".utf8), type: 2))],
            exif: [(0x829A, .rationals([(1, 0)])), (0x9003, .ascii("0000:00:00 00:00:00")), (0xA434, .ascii("XF23mm")),
                   (0x9011, .ascii("+99:00"))])
        var m = EXIFFields.read(block)
        XCTAssertNil(m.make)
        XCTAssertEqual(m.model, "X100V")
        XCTAssertEqual(m.creators, [])
        XCTAssertNil(m.exposureTime)
        XCTAssertNil(m.dateTaken)
        XCTAssertEqual(m.lens, "XF23mm")
        /* An entry whose value offset points past the end, and one whose count is 2^32 - 1. */
        var broken = block
        let model = try! XCTUnwrap(TIFFDirectory(block: block)?.entries[0x0110])
        let entry = model.valueOffset - 8
        broken.replaceSubrange(entry + 8 ..< entry + 12, with: [0xF0, 0xFF, 0xFF, 0x7F])
        broken.replaceSubrange(entry + 4 ..< entry + 8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        m = EXIFFields.read(broken)
        XCTAssertNil(m.model)
        XCTAssertEqual(m.lens, "XF23mm")
        XCTAssertEqual(EXIFFields.read([]), PhotoMetadata())
        XCTAssertEqual(EXIFFields.read(Array("II*\0\u{FF}\u{FF}\u{FF}\u{FF}".utf8)), PhotoMetadata())
    }

    /// Every byte of a block set to each of a few values: nothing crashes or hangs, whatever comes out.
    func testMutatedBlocksNeverCrash() {
        let iptc = B.photoshop([(2, 5, Array("Title".utf8)), (2, 25, Array("kw".utf8))])
        let xmp = Array(B.xmp.utf8)
        for block in [Self.exif, iptc] {
            for i in block.indices {
                for v: UInt8 in [0, 0x7F, 0xFF] {
                    var b = block
                    b[i] = v
                    _ = EXIFFields.read(b)
                    _ = IPTCRecords.read(photoshop: b)
                }
            }
        }
        for cut in stride(from: 0, to: xmp.count, by: 7) {
            _ = XMPPacket(Array(xmp[..<cut])).read()
            var b = xmp
            b[cut] = 0x3C
            _ = XMPPacket(b).read()
        }
    }

    func testXMPElementsAttributesAndEntities() {
        let m = XMPPacket(Array(B.xmp.utf8)).read()
        XCTAssertEqual(m.title, "Glacier <dawn>", "x-default wins over another language")
        XCTAssertEqual(m.description, "Ice—light é")
        XCTAssertEqual(m.creators, ["Anna Jónsdóttir", "Ben Ng"])
        XCTAssertEqual(m.credit, "Studio & Co.")
        XCTAssertEqual(m.copyright, "© 2024 Anna")
        XCTAssertEqual(m.licence, "https://creativecommons.org/licenses/by-sa/4.0/")
        XCTAssertEqual(m.keywords, ["glacier", "Iceland"])
        XCTAssertEqual(m.dateTaken, "2024-06-01T04:30:15+02:00")
        XCTAssertEqual(XMPPacket.date("2024-06-01"), "2024-06-01T00:00:00")
        XCTAssertEqual(XMPPacket.date("2024-06-01T04:30Z"), "2024-06-01T04:30:00+00:00")
        XCTAssertNil(XMPPacket.date("yesterday"))
        /* Invalid UTF-8 and an unknown entity drop that field only. */
        let bad = B.xmp.replacingOccurrences(of: "Ben Ng", with: "Ben &bogus; Ng").replacingOccurrences(of: "glacier", with: "gl\u{1}acier")
        let n = XMPPacket(Array(bad.utf8)).read()
        XCTAssertEqual(n.creators, ["Anna Jónsdóttir"])
        XCTAssertEqual(n.keywords, ["Iceland"])
        XCTAssertEqual(n.title, "Glacier <dawn>")
    }

    func testIPTCRecordsAndCharacterSets() {
        let utf8 = B.photoshop([(1, 90, [0x1B, 0x25, 0x47]), (2, 5, Array("Fjörður".utf8)), (2, 80, Array("Anna".utf8)),
                                (2, 80, Array("Ben".utf8)), (2, 110, Array("Studio".utf8)), (2, 116, Array("© 2024".utf8)),
                                (2, 120, Array("Caption".utf8)), (2, 25, Array("a".utf8)), (2, 25, Array("b".utf8)),
                                (2, 55, Array("20240601".utf8)), (2, 60, Array("043015+0200".utf8)), (2, 105, [0xC3, 0x28])])
        let m = IPTCRecords.read(photoshop: utf8)
        XCTAssertEqual(m.title, "Fjörður")
        XCTAssertEqual(m.creators, ["Anna", "Ben"])
        XCTAssertEqual(m.credit, "Studio")
        XCTAssertEqual(m.copyright, "© 2024")
        XCTAssertEqual(m.description, "Caption")
        XCTAssertEqual(m.keywords, ["a", "b"])
        XCTAssertEqual(m.dateTaken, "2024-06-01T04:30:15+02:00")
        /* No declared character set: Latin-1 bytes read as Latin-1; declared UTF-8 that is not UTF-8 dropped. */
        XCTAssertEqual(IPTCRecords.read(photoshop: B.photoshop([(2, 5, [0x46, 0x6A, 0xF6, 0x72, 0xF0, 0x75, 0x72])])).title, "Fjörður")
        XCTAssertNil(IPTCRecords.read(photoshop: B.photoshop([(1, 90, [0x1B, 0x25, 0x47]), (2, 5, [0x46, 0xF6])])).title)
        /* A size past the end, and resources that do not start with 8BIM. */
        var truncated = utf8
        truncated.removeLast(40)
        XCTAssertNil(IPTCRecords.read(photoshop: truncated).title)
        XCTAssertEqual(IPTCRecords.read(photoshop: Array("8BIX".utf8) + utf8), PhotoMetadata())
    }

    /// A JPEG as exiftool leaves it: XMP wins for what a person wrote, EXIF for what the camera recorded.
    func testAJPEGFileMergesItsBlocks() throws {
        let iptc = B.photoshop([(2, 5, Array("IPTC title".utf8)), (2, 120, Array("IPTC caption".utf8))])
        let file = B.jpeg(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("baseline.jpg"))).map { $0 }, segments: [
            (0xE1, Array("Exif\0\0".utf8) + Self.exif),
            (0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(B.xmp.utf8)),
            (0xED, Array("Photoshop 3.0\0".utf8) + iptc),
        ])
        let path = try temporary(file, "jpg")
        let m = try MetadataReader.read(path: path, files: .local)
        XCTAssertEqual(m.title, "Glacier <dawn>")
        XCTAssertEqual(m.description, "Ice—light é")
        XCTAssertEqual(m.creators, ["Anna Jónsdóttir", "Ben Ng"])
        XCTAssertEqual(m.dateTaken, "2024-06-01T04:30:15+02:00")
        XCTAssertEqual(m.make, "Canon")
        XCTAssertEqual(m.location?.latitude, -33.85875)
        /* The image itself is untouched by the blocks. */
        XCTAssertEqual(try ImageOpener.open(path).info.width, try ImageOpener.open(Fixtures.path("baseline.jpg")).info.width)
    }

    func testAPNGFileReadsEXIFXMPAndText() throws {
        let png = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("rgb.png"))).map { $0 }
        let file = B.png(png, chunks: [
            ("eXIf", Self.exif),
            ("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0".utf8) + Array(B.xmp.utf8)),
            ("tEXt", Array("Title\0Ignored: XMP has one".utf8)),
            ("tEXt", Array("Author\0J\u{F6}rg".unicodeScalars.map { UInt8($0.value) })),
            ("iTXt", Array("Description\0\u{1}\0\0\0".utf8) + [0x78, 0x9C, 0x01]),
        ])
        let path = try temporary(file, "png")
        let m = try MetadataReader.read(path: path, files: .local)
        XCTAssertEqual(m.title, "Glacier <dawn>")
        XCTAssertEqual(m.model, "Canon EOS R5")
        let plain = B.png(png, chunks: [("tEXt", Array("Title\0Harbour".utf8)),
                                        ("tEXt", Array("Author\0J\u{F6}rg".unicodeScalars.map { UInt8($0.value) })),
                                        ("iTXt", Array("Copyright\0\0\0en\0\0© Jörg".utf8))])
        let n = try MetadataReader.read(path: try temporary(plain, "png"), files: .local)
        XCTAssertEqual(n.title, "Harbour")
        XCTAssertEqual(n.creators, ["Jörg"])
        XCTAssertEqual(n.copyright, "© Jörg")
        XCTAssertEqual(try ImageOpener.open(path).info.height, try ImageOpener.open(Fixtures.path("rgb.png")).info.height)
    }

    /// Segments of absurd lengths, a walk that never reaches the image data, a file of only markers: read in
    /// bounded time to what can be read.
    func testHostileHeadersAreWalkedInBoundedTime() throws {
        XCTAssertEqual(try MetadataReader.read(path: try temporary([0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 100_000), "jpg"), files: .local), PhotoMetadata())
        let loop: [UInt8] = [0xFF, 0xD8] + (0 ..< 10_000).flatMap { _ -> [UInt8] in [0xFF, 0xE5, 0x00, 0x02] }
        XCTAssertEqual(try MetadataReader.read(path: try temporary(loop, "jpg"), files: .local), PhotoMetadata())
        let short: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF] + Array("Exif\0\0II".utf8)
        XCTAssertEqual(try MetadataReader.read(path: try temporary(short, "jpg"), files: .local), PhotoMetadata())
        let png = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("rgb.png"))).map { $0 }
        var huge = Array(png[0 ..< 33]) + [0x7F, 0xFF, 0xFF, 0xFF] + Array("tEXt".utf8) + Array("Title\0x".utf8)
        huge += png[33...]
        XCTAssertEqual(try MetadataReader.read(path: try temporary(huge, "png"), files: .local), PhotoMetadata())
    }

    private func temporary(_ bytes: [UInt8], _ ext: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("metadata-\(UUID().uuidString).\(ext)")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }
}
