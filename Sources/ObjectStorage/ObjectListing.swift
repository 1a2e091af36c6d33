/// One page of a ListObjectsV2 answer, read from its XML: each object's key, size, ETag and modification time,
/// and the token of the next page. Only the elements it needs are read; anything else (owners, storage classes,
/// namespaces) is skipped. Hostile input gets a `ParseError`, never a crash: this parser has a fuzz target.
package struct ObjectListing: Sendable {
    package struct Entry: Sendable, Equatable {
        package let key: String
        package let size: Int64
        package let etag: String
        /// ISO 8601 as the store sent it ("2026-11-26T16:07:08.000Z").
        package let lastModified: String
    }

    package struct ParseError: Swift.Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    package private(set) var entries: [Entry] = []
    package private(set) var isTruncated = false
    package private(set) var nextToken: String?

    package init(xml: [UInt8]) throws(ParseError) {
        var sawRoot = false
        var at = 0
        while let open = Self.find(xml, "<", from: at) {
            guard let close = Self.find(xml, ">", from: open) else { throw ParseError(description: "an unclosed tag") }
            let name = Self.tagName(xml, open + 1, close)
            at = close + 1
            switch name {
            case "ListBucketResult":
                sawRoot = true
            case "Contents":
                guard let end = Self.find(xml, "</Contents>", from: at) else { throw ParseError(description: "an unclosed Contents") }
                let block = Array(xml[at ..< end])
                guard let key = try Self.element(block, "Key") else { throw ParseError(description: "an object without a Key") }
                let sizeText = try Self.element(block, "Size") ?? ""
                guard let size = Int64(sizeText), size >= 0 else { throw ParseError(description: "the size \"\(sizeText.prefix(20))\" of \(key.prefix(200))") }
                entries.append(Entry(key: key, size: size, etag: try Self.element(block, "ETag") ?? "",
                                     lastModified: try Self.element(block, "LastModified") ?? ""))
                at = end + 11
            case "IsTruncated":
                isTruncated = try Self.text(xml, from: at, name: name) == "true"
            case "NextContinuationToken":
                nextToken = try Self.text(xml, from: at, name: name)
            default:
                break
            }
        }
        guard sawRoot else { throw ParseError(description: "no ListBucketResult element") }
    }

    private static func find(_ bytes: [UInt8], _ needle: String, from start: Int) -> Int? {
        let n = Array(needle.utf8)
        guard !n.isEmpty, start >= 0, bytes.count >= n.count else { return nil }
        var i = start
        while i + n.count <= bytes.count {
            if bytes[i] == n[0] && bytes[i ..< i + n.count].elementsEqual(n) { return i }
            i += 1
        }
        return nil
    }

    /// The element name of the tag between `start` and `end` (after `<`, before `>`): "" for closing tags,
    /// declarations and comments.
    private static func tagName(_ bytes: [UInt8], _ start: Int, _ end: Int) -> String {
        guard start < end, bytes[start] != UInt8(ascii: "/"), bytes[start] != UInt8(ascii: "?"),
              bytes[start] != UInt8(ascii: "!") else { return "" }
        var i = start
        while i < end, bytes[i] != UInt8(ascii: " "), bytes[i] != UInt8(ascii: "/"), bytes[i] != 9, bytes[i] != 10, bytes[i] != 13 { i += 1 }
        return String(decoding: bytes[start ..< i], as: UTF8.self)
    }

    /// The text of the first `<name>…</name>` in `block`, entities decoded; nil when there is none.
    private static func element(_ block: [UInt8], _ name: String) throws(ParseError) -> String? {
        guard let open = find(block, "<" + name + ">", from: 0) else {
            return find(block, "<" + name + "/>", from: 0) == nil ? nil : ""
        }
        return try text(block, from: open + name.utf8.count + 2, name: name)
    }

    /// The text from `start` to `</name>`, entities decoded.
    private static func text(_ bytes: [UInt8], from start: Int, name: String) throws(ParseError) -> String {
        guard let end = find(bytes, "</" + name + ">", from: start) else { throw ParseError(description: "an unclosed \(name)") }
        return try decodeEntities(bytes[start ..< end])
    }

    static func decodeEntities(_ raw: ArraySlice<UInt8>) throws(ParseError) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        while i < raw.endIndex {
            guard raw[i] == UInt8(ascii: "&") else { out.append(raw[i]); i += 1; continue }
            guard let semi = raw[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw ParseError(description: "an unterminated entity") }
            let entity = String(decoding: raw[(i + 1) ..< semi], as: UTF8.self)
            switch entity {
            case "amp": out.append(UInt8(ascii: "&"))
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let value: UInt32? = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                guard let value, value > 0, let scalar = Unicode.Scalar(value) else {
                    throw ParseError(description: "the entity &\(entity.prefix(10));")
                }
                out += Array(String(Character(scalar)).utf8)
            }
            i = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
