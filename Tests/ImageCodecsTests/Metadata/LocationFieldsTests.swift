import Foundation
@testable import ImageCodecs
import ImageTestSupport
import XCTest

/// Where a photo was taken, removed in place from files built byte by byte: the GPS directory emptied, XMP's and
/// IPTC's place properties blanked, nothing else changed; hostile structures cost nothing and break nothing.
final class LocationFieldsTests: XCTestCase {
    typealias B = MetadataBuilder

    static let gps: [(UInt16, B.Value)] = [(1, .ascii("N")), (2, .rationals([(48, 1), (51, 1), (24, 1)])), (3, .ascii("W")),
                                           (4, .rationals([(2, 1), (21, 1), (0, 1)]))]

    func apply(_ outcome: LocationScrubber.Outcome, to bytes: [UInt8]) -> [UInt8] {
        guard case let .patches(patches) = outcome else { return bytes }
        var out = bytes
        for p in patches { out.replaceSubrange(Int(p.offset) ..< Int(p.offset) + p.bytes.count, with: p.bytes) }
        return out
    }

    func scrub(_ bytes: [UInt8]) throws -> LocationScrubber.Outcome {
        try LocationScrubber.scrub(size: Int64(bytes.count)) { offset, count in
            guard offset >= 0, offset < Int64(bytes.count) else { return [] }
            return Array(bytes[Int(offset) ..< min(bytes.count, Int(offset) + count)])
        }
    }

    func testTheGPSDirectoryIsEmptiedInBothByteOrders() throws {
        for big in [false, true] {
            let block = B.tiff(bigEndian: big, ifd0: [(0x010F, .ascii("Canon"))], exif: [(0x8827, .short(400))], gps: Self.gps)
            XCTAssertNotNil(EXIFFields.read(block).location)
            let patches = try LocationFields.tiff(at: 0) { o, c in Array(block[Int(o) ..< min(block.count, Int(o) + c)]) }
            var scrubbed = block
            for p in patches { scrubbed.replaceSubrange(Int(p.offset) ..< Int(p.offset) + p.bytes.count, with: p.bytes) }
            let read = EXIFFields.read(scrubbed)
            XCTAssertNil(read.location)
            XCTAssertEqual(read.make, "Canon")
            XCTAssertEqual(read.iso, 400, "the EXIF directory is left alone")
            XCTAssertEqual(scrubbed.count, block.count)
        }
    }

    func testXMPPropertiesAreBlankedAsElementsAndAttributes() {
        let packet = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description exif:GPSLatitude="48,51.5N" photoshop:City='Paris'
         dc:format="image/jpeg" ex:GPSAltitude = "35/1"><exif:GPSLongitude>2,17.67E</exif:GPSLongitude>
        <Iptc4xmpExt:LocationCreated><rdf:Bag><rdf:li>Paris</rdf:li></rdf:Bag></Iptc4xmpExt:LocationCreated>
        <exif:GPSVersionID/><dc:title>Tower</dc:title></rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8)
        var blanked = packet
        for r in LocationFields.xmp(packet) { blanked.replaceSubrange(r, with: [UInt8](repeating: 0x20, count: r.count)) }
        let text = String(decoding: blanked, as: UTF8.self)
        for gone in ["GPS", "Paris", "City", "2,17.67E", "LocationCreated"] { XCTAssertFalse(text.contains(gone), gone) }
        for kept in ["dc:format=\"image/jpeg\"", "<dc:title>Tower</dc:title>", "</rdf:Description>"] { XCTAssertTrue(text.contains(kept), kept) }
        XCTAssertEqual(blanked.count, packet.count)
        XCTAssertEqual(XMPPacket(blanked).read().title, "Tower", "the rest still reads")
        XCTAssertNil(XMPPacket(blanked).read().location)
    }

    func testIIMPlacesAreBlankedAndTheRestKept() throws {
        let resources = B.photoshop([(2, 5, Array("Title".utf8)), (2, 90, Array("Paris".utf8)), (2, 101, Array("France".utf8)),
                                     (2, 25, Array("tower".utf8))])
        let range = try XCTUnwrap(LocationFields.iimRange(inPhotoshop: resources))
        var blanked = resources
        for r in LocationFields.iim(resources[range]) {
            let at = range.lowerBound + r.lowerBound
            blanked.replaceSubrange(at ..< at + r.count, with: [UInt8](repeating: 0x20, count: r.count))
        }
        let m = IPTCRecords.read(photoshop: blanked)
        XCTAssertEqual(m.title, "Title")
        XCTAssertEqual(m.keywords, ["tower"])
        XCTAssertFalse(String(decoding: blanked, as: UTF8.self).contains("Paris"))
        // The same resources as a TIFF file's Photoshop tag (34377), found from IFD0 without reading the file whole.
        let file = B.tiff(ifd0: [(0x010F, .ascii("Canon")), (34377, .bytes(resources, type: 7))])
        let patches = try LocationFields.tiff(at: 0, { o, c in Array(file[Int(o) ..< min(file.count, Int(o) + c)]) }, tiffFile: true)
        XCTAssertEqual(patches.count, 2)
        XCTAssertTrue(patches.allSatisfy { p in String(decoding: file[Int(p.offset) ..< Int(p.offset) + p.bytes.count], as: UTF8.self).hasPrefix("Paris")
            || String(decoding: file[Int(p.offset) ..< Int(p.offset) + p.bytes.count], as: UTF8.self) == "France" })
    }

    func testAJPEGAndAPNGAreScrubbedWholeAndTheirPixelsKept() throws {
        let pixels = PixelBuffer(width: 16, height: 16, channels: 3, bytes: (0 ..< 768).map { UInt8($0 % 251) })
        let exif = Array("Exif\0\0".utf8) + B.tiff(ifd0: [(0x010F, .ascii("Canon"))], gps: Self.gps)
        let jpeg = B.jpeg(try ImageEncoder.encode(pixels, as: .jpeg, quality: 90), segments: [(0xE1, exif)])
        let png = B.png(try ImageEncoder.encode(pixels, as: .png), chunks: [("eXIf", Array(exif.dropFirst(6)))])
        for file in [jpeg, png] {
            let outcome = try scrub(file)
            guard case .patches = outcome else { return XCTFail("nothing to remove in \(file.prefix(4))") }
            let scrubbed = apply(outcome, to: file)
            XCTAssertEqual(try ImageDecoder.decode(scrubbed).bytes, try ImageDecoder.decode(file).bytes)
            XCTAssertEqual(try scrub(scrubbed), .clean, "nothing is left to remove")
        }
        XCTAssertEqual(try scrub(try ImageEncoder.encode(pixels, as: .jpeg, quality: 90)), .clean)
    }

    func testHostileStructuresCostNothing() throws {
        // A GPS pointer past the end, a directory claiming 65,535 entries, values pointing anywhere, truncations.
        var block = B.tiff(ifd0: [(0x010F, .ascii("Canon"))], gps: Self.gps)
        for cut in stride(from: 0, to: block.count, by: 3) {
            _ = try LocationFields.tiff(at: 0) { o, c in o < Int64(cut) ? Array(block[Int(o) ..< min(cut, Int(o) + c)]) : [] }
        }
        block[8] = 0xFF; block[9] = 0xFF
        XCTAssertNoThrow(try LocationFields.tiff(at: 0) { o, c in o >= 0 && o < Int64(block.count) ? Array(block[Int(o) ..< min(block.count, Int(o) + c)]) : [] })
        XCTAssertEqual(LocationFields.xmp(Array("<a:GPS".utf8)), [])
        XCTAssertEqual(LocationFields.xmp(Array(" a:GPSx=\"never closed".utf8)), [])
        XCTAssertEqual(LocationFields.iim([0x1C, 2, 90, 0xFF, 0xFF, 1][...]), [])
        XCTAssertNil(LocationFields.iimRange(inPhotoshop: Array("8BIM".utf8) + [4, 4, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]))
    }

    /// Every seed and finding of the decoders' fuzz target (whose inputs are scrubbed too): overwrites inside the
    /// file, and a scrubbed file has nothing more to remove.
    func testTheFuzzInputsScrubCleanly() throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Fuzz").standardized
        var seen = 0
        for folder in ["Corpus", "Regressions"] {
            for format in ["jpeg", "png", "tiff", "jp2", "webp", "heic", "avif"] {
                let dir = fuzz.appendingPathComponent(folder).appendingPathComponent(format)
                for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where !name.hasPrefix(".") {
                    let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
                    seen += 1
                    guard case let .patches(patches)? = try? scrub(bytes) else { continue }
                    for p in patches { XCTAssertTrue(p.offset >= 0 && Int(p.offset) + p.bytes.count <= bytes.count, "\(format)/\(name)") }
                    let scrubbed = apply(.patches(patches), to: bytes)
                    let again = try scrub(scrubbed)
                    XCTAssertEqual(apply(again, to: scrubbed), scrubbed, "\(format)/\(name): scrubbed, it still says where it was taken")
                }
            }
        }
        XCTAssertGreaterThan(seen, 20)
    }
}
