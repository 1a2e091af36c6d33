/// A share link's token: `s2.{id}.{expires}.{kind}{path}.{mac}`, where `id` names the link (for the list and
/// revocation), `expires` is Unix seconds, `kind` is `i` (one image) or `f` (a folder), `path` the image id or
/// folder path it grants (base64url) and `mac` the HMAC-SHA256 of everything before it under the server's key.
/// It grants viewing that image alone, or every image below that folder, until `expires`, unless revoked. Nothing
/// else is in it; nothing else is trusted. Tokens of the first form (`s1`, no kind: an image's link also opened a
/// folder of the same name) verify no more. Parsing is pure and bounded, so it is fuzzed alone.
package struct ShareToken: Sendable, Equatable {
    /// What a link was made for, resolved through the library when it was made.
    package enum Kind: String, Sendable {
        case image = "i"
        case folder = "f"
    }

    package let id: String
    package let expires: Int
    package let kind: Kind
    package let path: String

    package init(id: String, expires: Int, kind: Kind, path: String) {
        self.id = id
        self.expires = expires
        self.kind = kind
        self.path = path
    }

    static let prefix = "s2"
    static let maxLength = 1024

    /// The token's text, signed with `key`.
    package func signed(with key: [UInt8]) -> String {
        let body = "\(Self.prefix).\(id).\(expires).\(kind.rawValue)\(Base64.encode(Array(path.utf8), .url))"
        return body + "." + Base64.encode(HMACSHA256.mac(Array(body.utf8), key: key), .url)
    }

    /// What the access log shows of a token: its form and id, never the signature that makes it work.
    static func logged(_ text: Substring) -> String {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count <= 64, parts[1].utf8.allSatisfy(isTokenByte) else { return "…" }
        return "\(parts[0].prefix(4)).\(parts[1]).…"
    }

    /// Why a token does not grant anything.
    package enum Failure: Swift.Error, Equatable, Sendable {
        /// Not a token, or not one signed with this server's key.
        case invalid
        case expired
        case revoked
        /// Signed with the current key but not in the list of links made: made a moment ago (the list is read
        /// again), or the list is gone (every link refused).
        case unlisted
    }

    /// The token `text` if it is well formed and signed with `key` (the MAC compared in constant time); its
    /// expiry and revocation are the caller's to check.
    package static func verify(_ text: String, key: [UInt8]) -> ShareToken? {
        guard text.utf8.count <= maxLength, !key.isEmpty else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == prefix, !parts[1].isEmpty, parts[1].utf8.count <= 64,
              parts[1].utf8.allSatisfy(Self.isTokenByte),
              parts[2].utf8.count <= 12, parts[2].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let expires = Int(parts[2]),
              let kind = parts[3].first.flatMap({ Kind(rawValue: String($0)) }),
              let pathBytes = Base64.decode(String(parts[3].dropFirst()), .url), let path = String(validating: pathBytes, as: UTF8.self),
              let mac = Base64.decode(String(parts[4]), .url), mac.count == 32
        else { return nil }
        let body = text.utf8.prefix(text.utf8.count - parts[4].utf8.count - 1)
        guard HMACSHA256.verify(mac, of: Array(body), key: key) else { return nil }
        return ShareToken(id: String(parts[1]), expires: expires, kind: kind, path: path)
    }

    static func isTokenByte(_ c: UInt8) -> Bool {
        c == 45 || c == 95 || (48 ... 57).contains(c) || (65 ... 90).contains(c) || (97 ... 122).contains(c)
    }

    /// Whether the token grants image `id`: the image it names, or one below the folder it names ("" names every
    /// folder). An image's link never opens a folder that shares its id's prefix (`a` and `a/…`).
    package func grants(image id: String) -> Bool {
        switch kind {
        case .image: id == path
        case .folder: path.isEmpty || id.hasPrefix(path + "/")
        }
    }

    /// Whether it grants something at or below folder `folder` (so the folder may be listed to its holder): a
    /// folder link its folder and those below; either kind the folders above what it names, to reach it.
    package func reaches(folder: String) -> Bool {
        if folder.isEmpty || path.hasPrefix(folder + "/") { return true }
        return kind == .folder && (path.isEmpty || folder == path || folder.hasPrefix(path + "/"))
    }
}
