import POSIXSupport

/// Requests access control refused, by reason, for `/metrics`: never by image or user.
final class Refusals: Sendable {
    enum Reason: String, CaseIterable, Sendable {
        /// Not signed in (401).
        case unauthenticated
        /// Signed in without the group (403).
        case forbidden
        /// Answered as missing (hidden).
        case hidden
        /// Past the public size of a tiered image.
        case oversize
        /// A share link that is forged, expired or revoked.
        case share
        /// Sign-in refused: wrong password, slowed, or cross-site.
        case signIn = "sign_in"
        /// `/metrics` from an address not allowed.
        case metrics
        /// An access token asked for by a viewer origin not listed in `--auth-origins`.
        case origin
    }

    private let counts = Locked([Reason: Int]())

    func count(_ reason: Reason) {
        counts.withLock { $0[reason, default: 0] += 1 }
    }

    var text: String {
        let snapshot = counts.withLock { $0 }
        return "# TYPE tileserver_access_refusals_total counter\n" + Reason.allCases.map {
            "tileserver_access_refusals_total{reason=\"\($0.rawValue)\"} \(snapshot[$0] ?? 0)\n"
        }.joined()
    }
}
