/// What removing a photo's location from its file takes (`LocationFields`), by the file's kind: JPEG's `APP1` Exif
/// and XMP and `APP13` IPTC, PNG's `eXIf` and uncompressed XMP (each chunk's CRC made again), a classic TIFF's own
/// GPS directory, XMP, IPTC and Photoshop resources (IFD0's tags: a gigapixel TIFF is not read whole), and in any other file (WebP, HEIF/AVIF, JPEG 2000) every Exif block and XMP packet
/// found in its bytes: none of those carries a checksum over them. The file is never re-encoded: the answer is a
/// list of overwrites in place.
package enum LocationScrubber {
    package enum Outcome: Sendable, Equatable {
        /// Nothing in the file says where it was taken.
        case clean
        /// These overwrites remove it.
        case patches([LocationFields.Patch])
        /// It may say, in a form that cannot be removed in place (compressed XMP in PNG, BigTIFF).
        case cannot(String)
    }

    private static let exifHeader = Array("Exif\0\0".utf8)
    private static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    private static let photoshopHeader = Array("Photoshop 3.0\0".utf8)
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// What removes the location from a file of `size` bytes that `read` reads. The file is searched again with
    /// the overwrites applied until nothing more changes (structures that overlap, as a hostile file's do, can
    /// show a new one once another is emptied); a file still changing after `maxRounds` is not scrubbed.
    package static func scrub(size: Int64, _ read: @escaping LocationFields.Reader) throws -> Outcome {
        var applied: [LocationFields.Patch] = []
        let overlaid: LocationFields.Reader = { offset, count in
            var bytes = try read(offset, count)
            for patch in applied {
                let from = max(offset, patch.offset), to = min(offset + Int64(bytes.count), patch.offset + Int64(patch.bytes.count))
                guard from < to else { continue }
                bytes.replaceSubrange(Int(from - offset) ..< Int(to - offset), with: patch.bytes[Int(from - patch.offset) ..< Int(to - patch.offset)])
            }
            return bytes
        }
        for _ in 0 ..< maxRounds {
            let outcome = try once(size: size, overlaid)
            guard case let .patches(found) = outcome else { return applied.isEmpty ? outcome : .patches(applied) }
            let changing = try found.filter { try overlaid($0.offset, $0.bytes.count) != $0.bytes }
            if changing.isEmpty { return applied.isEmpty ? .clean : .patches(applied) }
            applied += changing
        }
        return .cannot("its metadata is tangled")
    }

    static let maxRounds = 4

    /// One search of the file for what says where it was taken.
    static func once(size: Int64, _ read: LocationFields.Reader) throws -> Outcome {
        let head = try read(0, 16)
        let patches: [LocationFields.Patch]
        if head.starts(with: [0xFF, 0xD8]) {
            patches = try jpeg(size, read)
        } else if head.starts(with: pngSignature) {
            guard let found = try png(size, read) else { return .cannot("its XMP is compressed") }
            patches = found
        } else if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            patches = try LocationFields.tiff(at: 0, read, tiffFile: true)
        } else if head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            return .cannot("BigTIFF directories are not rewritten")
        } else {
            patches = try scan(size, read, exif: true)
        }
        let inside = patches.filter { $0.offset >= 0 && $0.offset + Int64($0.bytes.count) <= size }
        return inside.isEmpty ? .clean : .patches(inside)
    }

    /// JPEG: the marker segments before the first scan.
    static func jpeg(_ size: Int64, _ read: LocationFields.Reader) throws -> [LocationFields.Patch] {
        var patches: [LocationFields.Patch] = []
        var offset: Int64 = 2
        for _ in 0 ..< 4_096 {
            let head = try read(offset, 4)
            guard head.count == 4, head[0] == 0xFF else { break }
            let marker = head[1]
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0 ... 0xD7).contains(marker) { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 2 else { break }
            let start = offset + 4
            if marker == 0xE1 || marker == 0xED {
                let data = try read(start, length - 2)
                if data.starts(with: exifHeader) {
                    let base = start + Int64(exifHeader.count), end = start + Int64(data.count)
                    patches += try LocationFields.tiff(at: base) { at, count in
                        guard at >= base, at < end else { return [] }
                        return try read(at, Int(min(Int64(count), end - at)))
                    }
                } else if data.starts(with: xmpHeader) || data.starts(with: Array("http://ns.adobe.com/xmp/extension/\0".utf8)) {
                    patches += blanks(LocationFields.xmp(data), at: start)
                } else if marker == 0xED, data.starts(with: photoshopHeader) {
                    let resources = Array(data.dropFirst(photoshopHeader.count))
                    if let iim = LocationFields.iimRange(inPhotoshop: resources) {
                        let at = start + Int64(photoshopHeader.count + iim.lowerBound)
                        patches += blanks(LocationFields.iim(resources[iim]), at: at)
                    }
                }
            }
            offset = start + Int64(length - 2)
            guard offset < size else { break }
        }
        return patches
    }

    /// PNG: `eXIf` and the uncompressed XMP `iTXt`, each rewritten whole with its CRC; nil when an XMP chunk is
    /// compressed.
    static func png(_ size: Int64, _ read: LocationFields.Reader) throws -> [LocationFields.Patch]? {
        var patches: [LocationFields.Patch] = []
        var offset: Int64 = 8
        for _ in 0 ..< 100_000 {
            let head = try read(offset, 8)
            guard head.count == 8 else { break }
            let length = Int(LocationFields.u32(head, 0, true))
            let type = String(decoding: head[4 ..< 8], as: UTF8.self)
            guard offset + 12 + Int64(length) <= size, type != "IEND" else { break }
            if (type == "eXIf" || type == "iTXt") && length <= LocationFields.maxValue {
                var data = try read(offset + 8, length)
                var found: [LocationFields.Patch] = []
                if type == "eXIf" {
                    let block = data
                    found = try LocationFields.tiff(at: 0) { at, count in
                        at >= 0 && at < Int64(block.count) ? Array(block[Int(at) ..< min(block.count, Int(at) + count)]) : []
                    }
                } else if data.starts(with: Array("XML:com.adobe.xmp\0".utf8)), data.count > 19 {
                    guard data[18] == 0 else { return nil }
                    var text = 20
                    for _ in 0 ..< 2 { text = (data[min(text, data.count)...].firstIndex(of: 0) ?? data.count) + 1 }
                    guard text <= data.count else { break }
                    found = blanks(LocationFields.xmp(Array(data[text...])), at: Int64(text))
                }
                for patch in found where patch.offset >= 0 && Int(patch.offset) + patch.bytes.count <= data.count {
                    data.replaceSubrange(Int(patch.offset) ..< Int(patch.offset) + patch.bytes.count, with: patch.bytes)
                }
                if !found.isEmpty {
                    let crc = CRC32.checksum(Array(head[4 ..< 8]) + data)
                    patches.append(LocationFields.Patch(offset: offset + 8, bytes: data + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF),
                                                                                         UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]))
                }
            }
            offset += 12 + Int64(length)
        }
        return patches
    }

    /// Any other file: every `Exif\0\0` TIFF structure and every XMP packet in its bytes, read a window at a time.
    static func scan(_ size: Int64, _ read: LocationFields.Reader, exif: Bool) throws -> [LocationFields.Patch] {
        let window = 4 << 20, overlap = 64
        let xmpStart = Array("<x:xmpmeta".utf8), xmpEnd = Array("</x:xmpmeta>".utf8)
        var patches: [LocationFields.Patch] = []
        var offset: Int64 = 0
        while offset < size {
            let bytes = try read(offset, window + overlap)
            guard !bytes.isEmpty else { break }
            var at = 0
            while exif, let found = LocationFields.find(exifHeader, in: bytes, from: at), found < window {
                patches += try LocationFields.tiff(at: offset + Int64(found + exifHeader.count), read)
                at = found + 1
            }
            at = 0
            while let found = LocationFields.find(xmpStart, in: bytes, from: at), found < window {
                let packet = try read(offset + Int64(found), LocationFields.maxValue)
                if let end = LocationFields.find(xmpEnd, in: packet, from: 0) {
                    patches += blanks(LocationFields.xmp(Array(packet[..<end])), at: offset + Int64(found))
                }
                at = found + 1
            }
            offset += Int64(window)
        }
        return patches
    }

    static func blanks(_ ranges: [Range<Int>], at base: Int64) -> [LocationFields.Patch] {
        ranges.map { LocationFields.Patch(offset: base + Int64($0.lowerBound), bytes: [UInt8](repeating: 0x20, count: $0.count)) }
    }
}

/// CRC-32 as PNG chunks carry it (ISO 3309, the polynomial 0xEDB88320 reflected).
enum CRC32 {
    static let table: [UInt32] = (0 ..< 256).map { n in
        (0 ..< 8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { c, b in table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    }
}
