/// Where a photo was taken, found in the three places files keep it, as the byte ranges that say it: EXIF's GPS
/// directory in a TIFF structure, XMP's `exif:GPS…` and place properties, IPTC-IIM's place datasets. Each range is
/// overwritten where it stands (zeros for the GPS directory, spaces in text), so every other byte of the file,
/// every offset and every length stays as it was. Pure and bounded, so it is fuzzed alone.
package enum LocationFields {
    /// Bytes overwritten at `offset` (from the start of what was searched).
    package struct Patch: Sendable, Equatable {
        package let offset: Int64
        package let bytes: [UInt8]

        package init(offset: Int64, bytes: [UInt8]) {
            self.offset = offset
            self.bytes = bytes
        }
    }

    /// Reads `count` bytes at an offset (fewer at the end); offsets are the searched thing's own.
    package typealias Reader = (_ offset: Int64, _ count: Int) throws -> [UInt8]

    /// Most directory entries and value bytes looked at, so a hostile structure costs little.
    static let maxEntries = 1_024
    static let maxValue = 1 << 20

    /// The TIFF structure starting at `base`: its GPS directory emptied (entry count 0, entries, next-directory
    /// offset and every value they point to zeroed), the pointer to it left to an empty directory, which every
    /// reader takes as "no GPS". Its IFD0 `XMP` (700), `IPTC` (33723) and Photoshop (34377) values are searched too
    /// (`tiffFile`: a TIFF file, where they are the file's own). Empty when there is nothing to remove or no TIFF structure.
    package static func tiff(at base: Int64, _ read: Reader, tiffFile: Bool = false) throws -> [Patch] {
        let head = try read(base, 8)
        guard head.count == 8 else { return [] }
        let big: Bool
        switch (head[0], head[1]) {
        case (0x49, 0x49): big = false
        case (0x4D, 0x4D): big = true
        default: return []
        }
        guard u16(head, 2, big) == 42 else { return [] }
        let entries = try directory(at: base + Int64(u32(head, 4, big)), read, big)
        var patches: [Patch] = []
        for entry in entries {
            switch entry.tag {
            case 0x8825:
                let gps = base + Int64(u32(entry.raw, 8, big))
                let gpsEntries = try directory(at: gps, read, big)
                for value in gpsEntries where value.bytes > 4 && value.bytes <= maxValue {
                    patches.append(Patch(offset: base + Int64(u32(value.raw, 8, big)), bytes: [UInt8](repeating: 0, count: value.bytes)))
                }
                let size = 2 + gpsEntries.count * 12 + 4
                if !gpsEntries.isEmpty {
                    patches.append(Patch(offset: gps, bytes: [UInt8](repeating: 0, count: size)))
                }
            case 700 where tiffFile, 33723 where tiffFile, 34377 where tiffFile:
                guard entry.bytes > 4, entry.bytes <= maxValue else { continue }
                let at = base + Int64(u32(entry.raw, 8, big))
                let value = try read(at, entry.bytes)
                let ranges = switch entry.tag {
                case 700: xmp(value)
                case 33723: iim(value[...])
                default: photoshop(value)
                }
                patches += ranges.map { Patch(offset: at + Int64($0.lowerBound), bytes: [UInt8](repeating: 0x20, count: $0.count)) }
            default:
                continue
            }
        }
        return patches
    }

    struct Entry {
        let tag: UInt16
        let bytes: Int
        let raw: [UInt8]
    }

    /// The entries of the IFD at `offset`, each with its value's size; damaged entries are skipped.
    static func directory(at offset: Int64, _ read: Reader, _ big: Bool) throws -> [Entry] {
        let countBytes = try read(offset, 2)
        guard countBytes.count == 2 else { return [] }
        let count = min(Int(u16(countBytes, 0, big)), maxEntries)
        let table = try read(offset + 2, count * 12)
        var entries: [Entry] = []
        for i in 0 ..< table.count / 12 {
            let raw = Array(table[i * 12 ..< i * 12 + 12])
            let size: Int = switch u16(raw, 2, big) {
            case 1, 2, 6, 7: 1
            case 3, 8: 2
            case 4, 9, 11, 13: 4
            case 5, 10, 12: 8
            default: 0
            }
            let n = Int(u32(raw, 4, big))
            guard size > 0, n <= maxValue else { continue }
            entries.append(Entry(tag: u16(raw, 0, big), bytes: n * size, raw: raw))
        }
        return entries
    }

    /// XMP properties that say where: any `…:GPS…` (EXIF's in XMP), and the place properties of Photoshop's and
    /// IPTC's schemas, as elements or as attributes.
    static let placeNames: Set<String> = ["City", "State", "Country", "CountryCode", "Location", "Sublocation", "LocationCreated",
                                          "LocationShown", "LocationName"]

    /// The ranges of `packet` to blank: each location property, whole (`<p:GPSLatitude>…</p:GPSLatitude>`, or
    /// `p:City="…"`). Blanking with spaces leaves well-formed XML.
    package static func xmp(_ packet: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var at = 0
        while at < packet.count {
            guard packet[at] == UInt8(ascii: ":") else { at += 1; continue }
            var nameStart = at
            while nameStart > 0, isNameByte(packet[nameStart - 1]) { nameStart -= 1 }
            var localEnd = at + 1
            while localEnd < packet.count, isNameByte(packet[localEnd]) { localEnd += 1 }
            let local = String(decoding: packet[at + 1 ..< localEnd], as: UTF8.self)
            guard nameStart < at, nameStart > 0, local.hasPrefix("GPS") || placeNames.contains(local) else { at = localEnd; continue }
            let name = Array(packet[nameStart ..< localEnd])
            switch packet[nameStart - 1] {
            case UInt8(ascii: "<"):
                guard let end = elementEnd(packet, from: localEnd, name: name) else { at = localEnd; continue }
                ranges.append(nameStart - 1 ..< end)
                at = end
            case 0x20, 0x09, 0x0A, 0x0D:
                guard let end = attributeEnd(packet, from: localEnd) else { at = localEnd; continue }
                ranges.append(nameStart ..< end)
                at = end
            default:
                at = localEnd
            }
        }
        return ranges
    }

    /// Past the end of the element whose start tag's name ends at `from`: its `/>`, or its closing tag.
    static func elementEnd(_ bytes: [UInt8], from: Int, name: [UInt8]) -> Int? {
        var at = from, quote: UInt8?
        while at < bytes.count {
            let c = bytes[at]
            if let q = quote { if c == q { quote = nil } } else if c == 0x22 || c == 0x27 { quote = c } else if c == UInt8(ascii: ">") {
                if bytes[at - 1] == UInt8(ascii: "/") { return at + 1 }
                break
            }
            at += 1
        }
        let closing = Array("</".utf8) + name + [UInt8(ascii: ">")]
        guard at < bytes.count, let found = find(closing, in: bytes, from: at) else { return nil }
        return found + closing.count
    }

    /// Past the closing quote of the attribute whose name ends at `from`.
    static func attributeEnd(_ bytes: [UInt8], from: Int) -> Int? {
        var at = from
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
        guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { return nil }
        at += 1
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
        guard at < bytes.count, bytes[at] == 0x22 || bytes[at] == 0x27 else { return nil }
        let quote = bytes[at]
        guard let end = bytes[(at + 1)...].firstIndex(of: quote) else { return nil }
        return end + 1
    }

    /// The values of IPTC-IIM's place datasets in `iim` (record 2: 26 and 27 content location, 90 city, 92
    /// sub-location, 95 province or state, 100 and 101 country).
    package static func iim(_ iim: ArraySlice<UInt8>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var at = iim.startIndex
        while at + 5 <= iim.endIndex, iim[at] == 0x1C, ranges.count < maxEntries {
            let size = Int(iim[at + 3]) << 8 | Int(iim[at + 4])
            guard size < 0x8000, at + 5 + size <= iim.endIndex else { break }
            if iim[at + 1] == 2, [26, 27, 90, 92, 95, 100, 101].contains(iim[at + 2]), size > 0 {
                ranges.append(at + 5 - iim.startIndex ..< at + 5 + size - iim.startIndex)
            }
            at += 5 + size
        }
        return ranges
    }

    /// The ranges of Photoshop image resources (`8BIM`…: a TIFF's tag 34377) to blank: the places of their IPTC-IIM
    /// (0x0404) and of their XMP (0x0424).
    static func photoshop(_ resources: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        if let data = IPTCRecords.resource(0x0404, in: resources) {
            ranges += Self.iim(data).map { $0.lowerBound + data.startIndex ..< $0.upperBound + data.startIndex }
        }
        if let data = IPTCRecords.resource(0x0424, in: resources) {
            ranges += Self.xmp(Array(data)).map { $0.lowerBound + data.startIndex ..< $0.upperBound + data.startIndex }
        }
        return ranges
    }

    /// The IIM data of Photoshop resource 0x0404 in `resources` (`8BIM` image resources), as a range of it.
    package static func iimRange(inPhotoshop resources: [UInt8]) -> Range<Int>? {
        IPTCRecords.resource(0x0404, in: resources)?.indices
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        (65 ... 90).contains(c) || (97 ... 122).contains(c) || (48 ... 57).contains(c) || c == 95 || c == 45 || c == 46
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        var at = from
        while at <= haystack.count - needle.count {
            guard let first = haystack[at...].firstIndex(of: needle[0]), first <= haystack.count - needle.count else { return nil }
            if haystack[first ..< first + needle.count].elementsEqual(needle) { return first }
            at = first + 1
        }
        return nil
    }

    static func u16(_ b: [UInt8], _ at: Int, _ big: Bool) -> UInt16 {
        guard at + 2 <= b.count else { return 0 }
        return big ? UInt16(b[at]) << 8 | UInt16(b[at + 1]) : UInt16(b[at + 1]) << 8 | UInt16(b[at])
    }

    static func u32(_ b: [UInt8], _ at: Int, _ big: Bool) -> UInt32 {
        guard at + 4 <= b.count else { return 0 }
        let bytes = big ? [b[at], b[at + 1], b[at + 2], b[at + 3]] : [b[at + 3], b[at + 2], b[at + 1], b[at]]
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
