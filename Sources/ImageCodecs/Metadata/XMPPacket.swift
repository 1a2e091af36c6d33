/// The properties of an XMP packet that `PhotoMetadata` holds, found by their usual prefixes (`dc:`,
/// `photoshop:`, `xmpRights:`, `cc:`, `exif:`, `exifEX:`, `tiff:`) in either RDF form: an attribute of
/// `rdf:Description` or an element, simple or holding an `rdf:Alt`, `rdf:Seq` or `rdf:Bag` of `rdf:li`. Not a
/// general XML parser: a packet that uses other prefixes for these namespaces is read as having none of them.
struct XMPPacket {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = Array(bytes.prefix(MetadataBlocks.maxBlock))
    }

    func read() -> PhotoMetadata {
        var m = PhotoMetadata()
        m.title = first("dc:title") ?? first("photoshop:Headline")
        m.description = first("dc:description")
        m.creators = Array(values("dc:creator").prefix(MetadataText.maxItems))
        m.credit = first("photoshop:Credit")
        m.copyright = first("dc:rights")
        m.licence = first("cc:license") ?? first("xmpRights:WebStatement")
        m.keywords = Array(values("dc:subject").prefix(MetadataText.maxItems))
        m.dateTaken = (first("exif:DateTimeOriginal") ?? first("photoshop:DateCreated") ?? first("xmp:CreateDate")).flatMap(Self.date)
        m.make = first("tiff:Make")
        m.model = first("tiff:Model")
        m.lens = first("exifEX:LensModel") ?? first("aux:Lens")
        m.rating = first("xmp:Rating").flatMap { Double($0) }.map { Int($0.rounded()) }.flatMap { (-1 ... 5).contains($0) ? $0 : nil }
        return m
    }

    /// XMP's ISO 8601 dates (`2024-06-01`, `2024-06-01T14:30`, `…:05.25+02:00`, `…Z`) in `PhotoMetadata`'s form.
    static func date(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count >= 10, b[4] == 45, b[7] == 45 else { return nil }
        var exif: [UInt8] = Array(b[0 ..< 4])
        exif.append(58)
        exif += b[5 ..< 7]
        exif.append(58)
        exif += b[8 ..< 10]
        exif.append(32)
        var rest = b.count > 10 && b[10] == 84 ? Array(b[11...]) : []
        var clock = Array(rest.prefix { $0 != 43 && $0 != 45 && $0 != 90 })
        rest.removeFirst(clock.count)
        if let dot = clock.firstIndex(of: 46) { clock = Array(clock[..<dot]) }
        if clock.count == 5 { clock += Array(":00".utf8) }
        exif += clock.isEmpty ? Array("00:00:00".utf8) : clock
        let offset = rest == [90] ? "+00:00" : rest.isEmpty ? nil : String(decoding: rest, as: UTF8.self)
        return EXIFFields.date(String(decoding: exif, as: UTF8.self), offset: offset)
    }

    private func first(_ name: String) -> String? { values(name).first }

    /// The values of property `name`: an `x-default` alternative first.
    func values(_ name: String) -> [String] {
        let n = Array(name.utf8)
        var at = 0
        while let hit = find(n, from: at) {
            at = hit + n.count
            guard at < bytes.count else { break }
            let before = hit > 0 ? bytes[hit - 1] : 0
            if before == 60 /* < */, Self.isSpace(bytes[at]) || bytes[at] == 62 || bytes[at] == 47 {
                if let found = element(startingAt: at, name: n), !found.isEmpty { return found }
            } else if Self.isSpace(before), let value = attribute(at: at) {
                return value.isEmpty ? [] : [value]
            }
        }
        return []
    }

    /// `="value"` (or single quotes) at `at`, unescaped.
    private func attribute(at start: Int) -> String? {
        var at = start
        while at < bytes.count, Self.isSpace(bytes[at]) { at += 1 }
        guard at < bytes.count, bytes[at] == 61 else { return nil }
        at += 1
        while at < bytes.count, Self.isSpace(bytes[at]) { at += 1 }
        guard at < bytes.count, bytes[at] == 34 || bytes[at] == 39 else { return nil }
        let quote = bytes[at]
        guard let end = bytes[(at + 1)...].firstIndex(of: quote) else { return nil }
        return Self.unescape(bytes[(at + 1) ..< end])
    }

    /// The element whose start tag continues at `at`: its `rdf:resource`, its `rdf:li` items, or its text.
    private func element(startingAt at: Int, name: [UInt8]) -> [String]? {
        guard let close = tagEnd(from: at) else { return nil }
        let tag = Array(bytes[at ..< close])
        if tag.last == 47 { /* <name rdf:resource="…"/> */
            return XMPPacket(tag).attributeValue("rdf:resource").map { [$0] }
        }
        guard let end = find([60, 47] + name, from: close) else { return nil }
        let content = Array(bytes[(close + 1) ..< end])
        let inner = XMPPacket(content)
        guard inner.find(Array("<rdf:li".utf8), from: 0) != nil else {
            return content.contains(60) ? nil : Self.unescape(content[...]).map { [$0] }
        }
        var items: [(String, Bool)] = []
        var from = 0
        let open = Array("<rdf:li".utf8), shut = Array("</rdf:li>".utf8)
        while let li = inner.find(open, from: from), let tagClose = inner.tagEnd(from: li + open.count) {
            from = tagClose + 1
            guard content[tagClose - 1] != 47, let liEnd = inner.find(shut, from: from) else { continue }
            let attributes = XMPPacket(Array(content[li ..< tagClose]))
            if let text = Self.unescape(content[from ..< liEnd]) {
                items.append((text, attributes.attributeValue("xml:lang") == "x-default"))
            }
            from = liEnd + shut.count
        }
        return items.filter { $0.1 }.map(\.0) + items.filter { !$0.1 }.map(\.0)
    }

    private func attributeValue(_ name: String) -> String? {
        let n = Array(name.utf8)
        var at = 0
        while let hit = find(n, from: at) {
            at = hit + n.count
            if hit > 0, Self.isSpace(bytes[hit - 1]), let value = attribute(at: at) { return value }
        }
        return nil
    }

    /// The `>` that ends the tag at `at`, past quoted attribute values.
    private func tagEnd(from start: Int) -> Int? {
        var quote: UInt8 = 0
        var at = start
        while at < bytes.count {
            let c = bytes[at]
            if quote != 0 { if c == quote { quote = 0 } } else if c == 34 || c == 39 { quote = c } else if c == 62 { return at }
            at += 1
        }
        return nil
    }

    func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var at = start
        let last = bytes.count - needle.count
        while at <= last {
            if bytes[at] == first, bytes[at ..< at + needle.count].elementsEqual(needle) { return at }
            at += 1
        }
        return nil
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }

    /// XML text with its five entities and numeric references replaced; nil when not valid UTF-8 or blank.
    static func unescape(_ raw: ArraySlice<UInt8>) -> String? {
        guard raw.count <= MetadataText.maxBytes, let text = String(validating: raw, as: UTF8.self) else { return nil }
        guard text.contains("&") else { return MetadataText.clean(text) }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else { return nil }
            let entity = rest[rest.index(after: amp) ..< semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let hex = entity.hasPrefix("#x") || entity.hasPrefix("#X")
                guard entity.hasPrefix("#"), let code = UInt32(entity.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
                      let scalar = Unicode.Scalar(code) else { return nil }
                out.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semi)...]
        }
        return MetadataText.clean(out + rest)
    }
}
