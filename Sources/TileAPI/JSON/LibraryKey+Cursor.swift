import Library

extension LibraryKey {
    /// An opaque cursor for "the images after this one" (`?after=` of a `next` URL): URL-safe base64 of
    /// `root:id`, so a client cannot mistake it for an id and it survives the image being removed.
    var cursor: String {
        Base64.encode(Array("\(root):\(id)".utf8), .url)
    }

    init?(cursor: String) {
        guard let bytes = Base64.decode(cursor, .url), let text = String(validating: bytes, as: UTF8.self),
              let colon = text.firstIndex(of: ":"), let root = Int(text[..<colon]), root >= 0 else { return nil }
        self.init(root: root, id: String(text[text.index(after: colon)...]))
    }
}
