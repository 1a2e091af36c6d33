/// The share links made and revoked, kept beside the key (`{secret-file}.shares`): one line per link,
/// `id expires path-base64url created revoked(0|1) kind(i|f)`. A link is honoured only while it is listed here
/// and not revoked: the list going missing or unreadable ends every link (`AccessControl`). `tileserver share`
/// writes it (whole, by rename); the server re-reads it when it changes, so a revocation applies within seconds.
package struct ShareBook: Sendable, Equatable {
    package struct Link: Sendable, Equatable {
        package let token: ShareToken
        package let created: Int
        package var revoked: Bool
    }

    package private(set) var links: [Link] = []

    package init() {}

    package mutating func add(_ token: ShareToken, created: Int) {
        links.append(Link(token: token, created: created, revoked: false))
    }

    /// Marks link `id` revoked; false when there is no such link.
    package mutating func revoke(_ id: String) -> Bool {
        guard let i = links.firstIndex(where: { $0.token.id == id }) else { return false }
        links[i].revoked = true
        return true
    }

    /// Ids of revoked links.
    package var revoked: Set<String> { Set(links.filter(\.revoked).map(\.token.id)) }

    /// Ids of the links that may work: listed and not revoked.
    package var active: Set<String> { Set(links.filter { !$0.revoked }.map(\.token.id)) }

    /// The file's path for a key at `secretFile`.
    package static func path(forSecret secretFile: String) -> String { secretFile + ".shares" }

    /// A list file's text; lines that are not links are skipped (a hand-edited line never breaks revocation
    /// of the others).
    package static func parse(_ text: String) -> ShareBook {
        var book = ShareBook()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: " ", omittingEmptySubsequences: false)
            guard f.count == 6, let expires = Int(f[1]), let created = Int(f[3]), let kind = ShareToken.Kind(rawValue: String(f[5])),
                  let bytes = Base64.decode(String(f[2]), .url), let path = String(validating: bytes, as: UTF8.self) else { continue }
            book.links.append(Link(token: ShareToken(id: String(f[0]), expires: expires, kind: kind, path: path), created: created,
                                   revoked: f[4] == "1"))
        }
        return book
    }

    package var text: String {
        "# tileserver share links: id expires path(base64url) created revoked kind\n" + links.map {
            "\($0.token.id) \($0.token.expires) \(Base64.encode(Array($0.token.path.utf8), .url)) \($0.created) \($0.revoked ? 1 : 0) \($0.token.kind.rawValue)\n"
        }.joined()
    }
}
