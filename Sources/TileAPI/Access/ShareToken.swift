/// A share link's token: `s1.{id}.{expires}.{path}.{mac}`, where `id` names the link (for the list and
/// revocation), `expires` is Unix seconds, `path` the image id or folder path it grants (base64url) and `mac`
/// the HMAC-SHA256 of everything before it under the server's key. It grants viewing `path` (an image of that
/// id, or every image below that folder) until `expires`, unless revoked. Nothing else is in it; nothing else is
/// trusted. Parsing is pure and bounded, so it is fuzzed alone.
package struct ShareToken: Sendable, Equatable {
    package let id: String
    package let expires: Int
    package let path: String

    package init(id: String, expires: Int, path: String) {
        self.id = id
        self.expires = expires
        self.path = path
    }

    static let prefix = "s1"
    static let maxLength = 1024

    /// The token's text, signed with `key`.
    package func signed(with key: [UInt8]) -> String {
        let body = "\(Self.prefix).\(id).\(expires).\(Base64.encode(Array(path.utf8), .url))"
        return body + "." + Base64.encode(HMACSHA256.mac(Array(body.utf8), key: key), .url)
    }

    /// Why a token does not grant anything.
    package enum Failure: Swift.Error, Equatable, Sendable {
        /// Not a token, or not one signed with this server's key.
        case invalid
        case expired
        case revoked
    }

    /// The token `text` if it is well formed and signed with `key` (the MAC compared in constant time); its
    /// expiry and revocation are the caller's to check.
    package static func verify(_ text: String, key: [UInt8]) -> ShareToken? {
        guard text.utf8.count <= maxLength, !key.isEmpty else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == prefix, !parts[1].isEmpty, parts[1].utf8.count <= 64,
              parts[1].utf8.allSatisfy(Self.isTokenByte),
              parts[2].utf8.count <= 12, parts[2].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let expires = Int(parts[2]),
              let pathBytes = Base64.decode(String(parts[3]), .url), let path = String(validating: pathBytes, as: UTF8.self),
              let mac = Base64.decode(String(parts[4]), .url), mac.count == 32
        else { return nil }
        let body = text.utf8.prefix(text.utf8.count - parts[4].utf8.count - 1)
        guard HMACSHA256.verify(mac, of: Array(body), key: key) else { return nil }
        return ShareToken(id: String(parts[1]), expires: expires, path: path)
    }

    static func isTokenByte(_ c: UInt8) -> Bool {
        c == 45 || c == 95 || (48 ... 57).contains(c) || (65 ... 90).contains(c) || (97 ... 122).contains(c)
    }

    /// Whether the token grants image `id`: that image, or one below the folder it names ("" names every folder).
    package func grants(image id: String) -> Bool {
        path.isEmpty || id == path || id.hasPrefix(path + "/")
    }

    /// Whether it grants something at or below folder `folder` (so the folder may be listed to its holder).
    package func reaches(folder: String) -> Bool {
        path.isEmpty || folder == path || folder.hasPrefix(path + "/") || path.hasPrefix(folder.isEmpty ? "" : folder + "/")
    }
}
