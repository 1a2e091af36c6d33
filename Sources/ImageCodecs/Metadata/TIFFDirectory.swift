/// The entries of one IFD of a TIFF structure (an EXIF block), read with bounds checks on every offset: a bad
/// offset or type drops that value, never the block.
struct TIFFDirectory {
    /// One 12-byte entry: tag, type, count, and where its value starts in the block.
    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: Int
        let valueOffset: Int
    }

    let data: [UInt8]
    let bigEndian: Bool
    let entries: [UInt16: Entry]

    /// Most entries read from one IFD.
    static let maxEntries = 1_024

    /// IFD0 of `data`, or nil when it is not a TIFF structure.
    init?(block data: [UInt8]) {
        guard data.count >= 8 else { return nil }
        let big: Bool
        switch (data[0], data[1]) {
        case (0x49, 0x49): big = false
        case (0x4D, 0x4D): big = true
        default: return nil
        }
        guard Self.u16(data, 2, big) == 42, let ifd0 = Self.u32(data, 4, big) else { return nil }
        self.init(data, big, at: Int(ifd0))
    }

    private init(_ data: [UInt8], _ big: Bool, at offset: Int) {
        self.data = data
        bigEndian = big
        var entries: [UInt16: Entry] = [:]
        if let count = Self.u16(data, offset, big) {
            for i in 0 ..< min(Int(count), Self.maxEntries) {
                let at = offset + 2 + i * 12
                guard let tag = Self.u16(data, at, big), let type = Self.u16(data, at + 2, big),
                      let count = Self.u32(data, at + 4, big), let size = Self.size(of: type) else { continue }
                let bytes = Int(count) * size
                let value = bytes <= 4 ? at + 8 : Self.u32(data, at + 8, big).map(Int.init) ?? -1
                guard value >= 0, value <= data.count, data.count - value >= bytes, entries[tag] == nil else { continue }
                entries[tag] = Entry(tag: tag, type: type, count: Int(count), valueOffset: value)
            }
        }
        self.entries = entries
    }

    /// The IFD a LONG entry `tag` points to (EXIF 0x8769, GPS 0x8825).
    func subdirectory(_ tag: UInt16) -> TIFFDirectory? {
        guard let offset = integer(tag), offset > 0, offset < data.count else { return nil }
        return TIFFDirectory(data, bigEndian, at: offset)
    }

    /// An ASCII (or, as cameras write it, UTF-8) value.
    func text(_ tag: UInt16) -> String? {
        guard let e = entries[tag], e.type == 2 || e.type == 7 || e.type == 1 else { return nil }
        return MetadataText.utf8(data[e.valueOffset ..< e.valueOffset + e.count])
    }

    /// A BYTE, SHORT or LONG value.
    func integer(_ tag: UInt16, _ index: Int = 0) -> Int? {
        guard let e = entries[tag], index < e.count else { return nil }
        switch e.type {
        case 1: return Int(data[e.valueOffset + index])
        case 3: return Self.u16(data, e.valueOffset + index * 2, bigEndian).map(Int.init)
        case 4: return Self.u32(data, e.valueOffset + index * 4, bigEndian).map(Int.init)
        default: return nil
        }
    }

    /// A RATIONAL or SRATIONAL value; nil for a zero denominator.
    func rational(_ tag: UInt16, _ index: Int = 0) -> (numerator: Double, denominator: Double)? {
        guard let e = entries[tag], e.type == 5 || e.type == 10, index < e.count,
              let n = Self.u32(data, e.valueOffset + index * 8, bigEndian),
              let d = Self.u32(data, e.valueOffset + index * 8 + 4, bigEndian) else { return nil }
        let numerator = e.type == 10 ? Double(Int32(bitPattern: n)) : Double(n)
        let denominator = e.type == 10 ? Double(Int32(bitPattern: d)) : Double(d)
        return denominator == 0 ? nil : (numerator, denominator)
    }

    func number(_ tag: UInt16, _ index: Int = 0) -> Double? {
        rational(tag, index).map { $0.numerator / $0.denominator }
    }

    private static func size(of type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    private static func u16(_ d: [UInt8], _ at: Int, _ big: Bool) -> UInt16? {
        guard at >= 0, at <= d.count - 2 else { return nil }
        return big ? UInt16(d[at]) << 8 | UInt16(d[at + 1]) : UInt16(d[at + 1]) << 8 | UInt16(d[at])
    }

    private static func u32(_ d: [UInt8], _ at: Int, _ big: Bool) -> UInt32? {
        guard at >= 0, at <= d.count - 4 else { return nil }
        let b = (0 ..< 4).map { UInt32(d[at + $0]) }
        return big ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }
}
