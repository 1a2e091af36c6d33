import Foundation
@testable import ImageCodecs
import ImageTestSupport

/// Metadata blocks built byte by byte, as cameras and exiftool lay them out, for the reader's tests.
enum MetadataBuilder {
    enum Value {
        case ascii(String)
        case bytes([UInt8], type: UInt16)
        case short(UInt16)
        case long(UInt32)
        case rationals([(UInt32, UInt32)])
    }

    /// A TIFF structure: IFD0 with `ifd0`, and when given an EXIF IFD and a GPS IFD that IFD0 points to.
    static func tiff(bigEndian: Bool = false, ifd0: [(UInt16, Value)], exif: [(UInt16, Value)] = [], gps: [(UInt16, Value)] = []) -> [UInt8] {
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? b : b.reversed()
        }
        /// Writes an IFD at the end of `out`; its values follow it. Returns where each entry's value field is.
        func directory(_ entries: [(UInt16, Value)]) -> [UInt16: Int] {
            let start = out.count
            let valuesStart = start + 2 + entries.count * 12 + 4
            var values: [UInt8] = []
            var table: [UInt8] = u16(UInt16(entries.count))
            var slots: [UInt16: Int] = [:]
            for (tag, value) in entries.sorted(by: { $0.0 < $1.0 }) {
                let (type, count, data): (UInt16, Int, [UInt8])
                switch value {
                case let .ascii(s): (type, count, data) = (2, s.utf8.count + 1, Array(s.utf8) + [0])
                case let .bytes(b, t): (type, count, data) = (t, b.count, b)
                case let .short(v): (type, count, data) = (3, 1, u16(v))
                case let .long(v): (type, count, data) = (4, 1, u32(v))
                case let .rationals(r): (type, count, data) = (5, r.count, r.flatMap { u32($0.0) + u32($0.1) })
                }
                table += u16(tag) + u16(type) + u32(UInt32(count))
                slots[tag] = start + table.count
                if data.count <= 4 {
                    table += data + [UInt8](repeating: 0, count: 4 - data.count)
                } else {
                    table += u32(UInt32(valuesStart + values.count))
                    values += data + (data.count % 2 == 1 ? [0] : [])
                }
            }
            out += table + u32(0) + values
            return slots
        }
        var ifd0 = ifd0
        if !exif.isEmpty { ifd0.append((0x8769, .long(0))) }
        if !gps.isEmpty { ifd0.append((0x8825, .long(0))) }
        let slots = directory(ifd0)
        func patch(_ tag: UInt16) {
            guard let slot = slots[tag] else { return }
            out.replaceSubrange(slot ..< slot + 4, with: u32(UInt32(out.count)))
        }
        if !exif.isEmpty { patch(0x8769); _ = directory(exif) }
        if !gps.isEmpty { patch(0x8825); _ = directory(gps) }
        return out
    }

    /// Photoshop image resources holding one IPTC-IIM resource (0x0404) of `datasets` (record, number, bytes).
    static func photoshop(_ datasets: [(UInt8, UInt8, [UInt8])]) -> [UInt8] {
        var iim: [UInt8] = []
        for (record, number, value) in datasets {
            iim += [0x1C, record, number, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        let size = UInt32(iim.count)
        var out = Array("8BIM".utf8) + [0x04, 0x04, 0, 0] /* id, empty name padded to even */
        out += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + iim
        if iim.count % 2 == 1 { out.append(0) }
        return out
    }

    /// A JPEG file: `jpeg` with `segments` (marker, payload) put right after its SOI.
    static func jpeg(_ jpeg: [UInt8], segments: [(UInt8, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        for (marker, payload) in segments {
            let length = payload.count + 2
            out += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        return out + jpeg.dropFirst(2)
    }

    /// A PNG file: `png` with `chunks` (type, data) put right after its IHDR, CRCs right.
    static func png(_ png: [UInt8], chunks: [(String, [UInt8])]) -> [UInt8] {
        var out = Array(png[0 ..< 33])
        for (type, data) in chunks {
            let n = UInt32(data.count)
            out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            let body = Array(type.utf8) + data
            let crc = CRC32.checksum(body)
            out += body + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        return out + png[33...]
    }

    static let xmp = """
    <?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>
    <x:xmpmeta xmlns:x='adobe:ns:meta/'>
    <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
     <rdf:Description rdf:about='' xmlns:cc='http://creativecommons.org/ns#'>
      <cc:license rdf:resource='https://creativecommons.org/licenses/by-sa/4.0/'/>
     </rdf:Description>
     <rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/' xmlns:photoshop='http://ns.adobe.com/photoshop/1.0/'
      photoshop:Credit='Studio &amp; Co.'>
      <dc:creator><rdf:Seq><rdf:li>Anna Jónsdóttir</rdf:li><rdf:li>Ben Ng</rdf:li></rdf:Seq></dc:creator>
      <dc:title><rdf:Alt><rdf:li xml:lang='is'>Jökull</rdf:li><rdf:li xml:lang='x-default'>Glacier &lt;dawn&gt;</rdf:li></rdf:Alt></dc:title>
      <dc:description><rdf:Alt><rdf:li xml:lang='x-default'>Ice&#x2014;light &#233;</rdf:li></rdf:Alt></dc:description>
      <dc:subject><rdf:Bag><rdf:li>glacier</rdf:li><rdf:li>Iceland</rdf:li></rdf:Bag></dc:subject>
      <dc:rights><rdf:Alt><rdf:li xml:lang='x-default'>© 2024 Anna</rdf:li></rdf:Alt></dc:rights>
      <photoshop:DateCreated>2024-06-01T04:30:15.25+02:00</photoshop:DateCreated>
     </rdf:Description>
    </rdf:RDF>
    </x:xmpmeta>
    <?xpacket end='w'?>
    """
}
