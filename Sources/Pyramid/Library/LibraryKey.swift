import POSIXSupport

/// Where an image stands in the library's order: the command-line path it came from (in the order given), then
/// its id. With one folder that is simply the order of paths, which is what `/api/images` pages through.
public struct LibraryKey: Hashable, Comparable, Sendable {
    /// Index of the command-line path (file or folder) the image was found under.
    public let root: Int
    public let id: String

    public init(root: Int, id: String) {
        self.root = root
        self.id = id
    }

    /// Ids are ASCII (`ImageNaming`), for which `String`'s `<` is byte order, on its fast path.
    public static func < (a: LibraryKey, b: LibraryKey) -> Bool {
        a.root != b.root ? a.root < b.root : a.id < b.id
    }

    /// The folder an id sits in: everything before its last `/`, or "" at the top.
    public static func folder(of id: String) -> String {
        PathText.parent(of: id) // ids never start with "/"
    }

    /// An opaque cursor for "the images after this one" (`?after=` of a `next` URL): URL-safe base64 of
    /// `root:id`, so a client cannot mistake it for an id and it survives the image being removed.
    public var cursor: String {
        Base64URL.encode(Array("\(root):\(id)".utf8))
    }

    public init?(cursor: String) {
        guard let bytes = Base64URL.decode(cursor), let text = String(validating: bytes, as: UTF8.self),
              let colon = text.firstIndex(of: ":"), let root = Int(text[..<colon]), root >= 0 else { return nil }
        self.init(root: root, id: String(text[text.index(after: colon)...]))
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 §5).
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var chunk = UInt32(bytes[i]) << 16
            if n > 1 { chunk |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { chunk |= UInt32(bytes[i + 2]) }
            for k in 0 ... n { out.append(alphabet[Int(chunk >> (18 - 6 * UInt32(k))) & 63]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var value: UInt32 = 0, bits = 0
        var out: [UInt8] = []
        for c in text.utf8 {
            guard let digit = alphabet.firstIndex(of: c) else { return nil }
            value = value << 6 | UInt32(digit)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((value >> UInt32(bits)) & 0xFF))
            }
        }
        return bits >= 6 ? nil : out
    }
}
