/// IPTC-IIM application records (record 2) from Photoshop's image resources: object name, headline, caption,
/// by-line, credit, copyright notice, keywords and date created.
enum IPTCRecords {
    /// The IIM data of resource 0x0404 in `resources` (a run of `8BIM` image resources), read into fields.
    static func read(photoshop resources: [UInt8]) -> PhotoMetadata {
        guard let iim = resource(0x0404, in: resources) else { return PhotoMetadata() }
        return read(iim: iim)
    }

    static func read(iim: ArraySlice<UInt8>) -> PhotoMetadata {
        var datasets: [(record: UInt8, number: UInt8, value: ArraySlice<UInt8>)] = []
        var at = iim.startIndex
        while at + 5 <= iim.endIndex, iim[at] == 0x1C, datasets.count < 4_096 {
            let size = Int(iim[at + 3]) << 8 | Int(iim[at + 4])
            guard size < 0x8000, at + 5 + size <= iim.endIndex else { break } /* extended lengths: not for text */
            datasets.append((iim[at + 1], iim[at + 2], iim[at + 5 ..< at + 5 + size]))
            at += 5 + size
        }
        /* 1:90 is the coded character set: ESC % G declares UTF-8. Without it the text is taken as UTF-8 when it
         * is valid UTF-8 and as ISO 8859-1 otherwise, as IIM's older writers meant it. */
        let declaredUTF8 = datasets.contains { $0.record == 1 && $0.number == 90 && Array($0.value) == [0x1B, 0x25, 0x47] }
        func text(_ value: ArraySlice<UInt8>) -> String? {
            if let utf8 = MetadataText.utf8(value) { return utf8 }
            return declaredUTF8 ? nil : MetadataText.latin1(value)
        }
        func all(_ number: UInt8) -> [String] {
            Array(datasets.filter { $0.record == 2 && $0.number == number }.compactMap { text($0.value) }.prefix(MetadataText.maxItems))
        }
        var m = PhotoMetadata()
        m.title = all(5).first ?? all(105).first
        m.description = all(120).first
        m.creators = all(80)
        m.credit = all(110).first
        m.copyright = all(116).first
        m.keywords = all(25)
        if let day = all(55).first, day.utf8.count == 8 {
            let d = Array(day)
            let time = all(60).first.map(Array.init) ?? []
            var stamp = "\(String(d[0 ..< 4])):\(String(d[4 ..< 6])):\(String(d[6 ..< 8])) "
            var offset: String?
            if time.count >= 6 {
                stamp += "\(String(time[0 ..< 2])):\(String(time[2 ..< 4])):\(String(time[4 ..< 6]))"
                if time.count == 11 { offset = "\(String(time[6 ..< 9])):\(String(time[9 ..< 11]))" }
            } else {
                stamp += "00:00:00"
            }
            m.dateTaken = EXIFFields.date(stamp, offset: offset)
        }
        return m
    }

    /// The data of image resource `id`: each is `8BIM`, an id, a padded Pascal name, a size, padded data.
    static func resource(_ id: UInt16, in data: [UInt8]) -> ArraySlice<UInt8>? {
        var at = 0
        while at + 12 <= data.count, data[at ..< at + 4].elementsEqual("8BIM".utf8) {
            let rid = UInt16(data[at + 4]) << 8 | UInt16(data[at + 5])
            let nameLength = Int(data[at + 6])
            let sizeAt = at + 6 + ((nameLength + 2) & ~1)
            guard sizeAt + 4 <= data.count else { return nil }
            let size = (0 ..< 4).reduce(0) { $0 << 8 | Int(data[sizeAt + $1]) }
            let start = sizeAt + 4
            guard size <= data.count - start else { return nil }
            if rid == id { return data[start ..< start + size] }
            at = start + ((size + 1) & ~1)
        }
        return nil
    }
}
