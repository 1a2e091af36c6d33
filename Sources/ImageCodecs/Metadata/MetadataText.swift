/// The checks every text field of a metadata block passes: valid UTF-8, no control characters, not blank, not
/// over `maxBytes`. A field that fails is dropped, never the image.
enum MetadataText {
    /// Longest field kept, in bytes: a caption is a paragraph, not a book.
    static let maxBytes = 4_096
    /// Most keywords or creators kept from one list.
    static let maxItems = 64

    /// `bytes` as a trimmed string, or nil when they are not valid UTF-8, too long, or blank.
    static func utf8<C: Collection<UInt8>>(_ bytes: C) -> String? {
        guard bytes.count <= maxBytes else { return nil }
        var trimmed = Array(bytes)
        while let last = trimmed.last, last == 0 { trimmed.removeLast() }
        guard let text = String(validating: trimmed, as: UTF8.self) else { return nil }
        return clean(text)
    }

    /// ISO 8859-1 bytes as a string (IPTC without a declared character set, PNG `tEXt`).
    static func latin1<C: Collection<UInt8>>(_ bytes: C) -> String? {
        guard bytes.count <= maxBytes else { return nil }
        return clean(String(decoding: bytes.map { UInt16($0) }, as: UTF16.self))
    }

    /// Trims spaces and NULs; nil when nothing is left or a control character other than a line break or a tab
    /// is inside.
    static func clean(_ text: String) -> String? {
        let scalars = text.unicodeScalars
        guard !scalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" && $0 != "\0") || $0.value == 0x7F }) else {
            return nil
        }
        let kept = String(String.UnicodeScalarView(scalars.prefix { $0 != "\0" }))
        let trimmed = kept.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        return trimmed.isEmpty ? nil : String(trimmed)
    }
}
