/// Access control's settings (`docs/security.md`). Defaults here; the executable declares the flags.
package struct AccessSettings: Sendable {
    /// The access file (`--access`): rules per folder. Nil: every image is public.
    package var accessFile: String?
    /// The users file (`--users`): who can sign in.
    package var usersFile: String?
    /// The share-link key (`--secret-file`), made on first start; its list of links lives beside it.
    package var secretFile: String?
    /// Addresses whose `userHeader`/`groupsHeader` are believed, and whose `X-Forwarded-Proto: https` makes
    /// cookies `Secure`.
    package var trustedProxies: [AddressRange] = []
    /// Header names (lower-case) a trusted proxy names the user and their groups (comma-separated) in.
    package var userHeader: String?
    package var groupsHeader: String?
    /// Who may read `/metrics`; nil: anyone.
    package var metricsFrom: [AddressRange]?
    /// Viewer origins (`scheme://host[:port]`) the IIIF token service may hand access tokens to; empty: only the
    /// server's own. Listing any makes the session cookie `SameSite=None; Secure`.
    package var authOrigins: [String] = []
    /// How long a session lasts after sign-in, in seconds.
    package var sessionSeconds = 8 * 3600

    package init() {}

    /// `scheme://host[:port]` with nothing after it (http or https).
    package static func isOrigin(_ text: String) -> Bool {
        guard text.utf8.count <= 256, let schemeEnd = text.firstRange(of: "://"),
              ["http", "https"].contains(text[..<schemeEnd.lowerBound]) else { return false }
        let host = text[schemeEnd.upperBound...]
        return !host.isEmpty && host.unicodeScalars.allSatisfy {
            ("a" ... "z").contains($0) || ("A" ... "Z").contains($0) || ("0" ... "9").contains($0) || ".-:[]".unicodeScalars.contains($0)
        }
    }
}
