import HTTPTransport
import Library
import Pyramid

/// Who a request comes from: a trusted proxy's header, else a session (cookie, or a IIIF access token as
/// `Authorization: Bearer`), plus a share link's token (`?share=` or its cookie).
extension AccessControl {
    static let sessionCookie = "tileserver_session"
    static let shareCookie = "tileserver_share"

    /// The identity of `request` (whose decoded query is `query`), and why a share token it carries in the
    /// query grants nothing, if it does not.
    func identity(of request: HTTPRequest, query: [String: String]) -> (Identity, shareFailure: ShareToken.Failure?) {
        var identity = Identity()
        let cookies = request.headers.filter { $0.name == "cookie" }.map(\.value)
        if fromTrustedProxy(request), let header = settings.userHeader, let name = request.header(header), GroupName.isValid(name) {
            identity.user = name
            if let groupsHeader = settings.groupsHeader, let groups = request.header(groupsHeader) {
                identity.groups = Set(groups.split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimmingCharacters() }
                    .filter { GroupName.isValid($0) })
            }
        } else if let id = bearer(request).flatMap({ sessions.session(forToken: $0, origin: request.header("origin")) })
                    ?? FormFields.cookie(Self.sessionCookie, in: cookies),
                  let session = sessions.session(id) {
            if session.hash.isEmpty {
                identity.user = session.user
                identity.groups = Set(session.groups)
                identity.session = id
            } else if let user = users.user(session.user), user.hash == session.hash {
                identity.user = user.name
                identity.groups = Set(user.groups)
                identity.session = id
            }
        }
        var failure: ShareToken.Failure?
        if let token = query["share"] {
            switch share(token) {
            case let .success(granted): identity.share = granted
            case let .failure(why): failure = why
            }
        } else if let token = FormFields.cookie(Self.shareCookie, in: cookies), case let .success(granted) = share(token) {
            identity.share = granted
        }
        return (identity, failure)
    }

    /// For the fast tile path: the user whose session cookie (`cookie`, the one `Cookie` field's value) may see
    /// every tile of `image`, or nil when the routes must decide (no session, a proxy's headers to weigh, a rule
    /// not yet worked out, or anything less than the whole image): `Identity.decision`, the rule `admit` applies. `memo` is the
    /// calling loop's last such decision: taken again while the cookie, the image, the policy and the sessions are
    /// as they were and the session has not expired.
    func fastSignedIn(image: PyramidImage, cookie: UnsafeRawBufferPointer, now: Double, memo: inout SignedInMemo) -> String? {
        // Both counts are read before deciding, so a change made meanwhile leaves the memo stale, never wrong.
        let (policy, changes) = (generation, sessions.changeCount)
        if memo.holds(cookie: cookie, image: image, policy: policy, sessions: changes, now: now) { return memo.user }
        // The session carries its user's groups (kept current when the users file is re-read, and ended when the
        // password changes or the user goes), so one look at it and one at the image's rule decide.
        guard settings.trustedProxies.isEmpty, let sessionID = FormFields.cookie(Self.sessionCookie, in: cookie),
              let session = sessions.session(sessionID, now: now),
              let rule = library.cachedRule(of: image.id, generation: policy) else { return nil }
        let identity = Identity(user: session.user, groups: Set(session.groups), session: sessionID)
        guard identity.decision(for: image.id, rule: rule) == .full else { return nil }
        memo.remember(cookie: cookie, image: image, policy: policy, sessions: changes, expires: session.expires, user: session.user)
        return session.user
    }

    /// The token of an `Authorization: Bearer` header.
    func bearer(_ request: HTTPRequest) -> String? {
        guard let value = request.header("authorization"), value.lowercased().hasPrefix("bearer ") else { return nil }
        return value.dropFirst(7).trimmingCharacters()
    }

    /// Whether the connection comes from a trusted proxy (whose headers are then believed).
    func fromTrustedProxy(_ request: HTTPRequest) -> Bool {
        isTrustedProxy(request.peer)
    }

    func isTrustedProxy(_ address: String) -> Bool {
        !address.isEmpty && settings.trustedProxies.contains { $0.contains(address) }
    }

    /// The client's address: the connection's, or behind trusted proxies the one they report, the right-most
    /// `X-Forwarded-For` entry that is not itself a trusted proxy (entries left of it are the client's to write).
    func clientAddress(_ request: HTTPRequest) -> String {
        guard fromTrustedProxy(request) else { return request.peer }
        let forwarded = request.headers.filter { $0.name == "x-forwarded-for" }.flatMap { HTTPHeader.elements(of: $0.value) }
        for address in forwarded.reversed() where !isTrustedProxy(address) { return address }
        return forwarded.first ?? request.peer
    }

    /// Why the request must be refused before anything is decided: a configured identity header sent twice (a
    /// proxy that appends rather than replaces would let the client's copy be read).
    func ambiguity(_ request: HTTPRequest) -> APIError? {
        for name in [settings.userHeader, settings.groupsHeader].compactMap({ $0 }) where request.headers.count(where: { $0.name == name }) > 1 {
            return .badRequest("the \(name) header is sent more than once: which one names the user is ambiguous")
        }
        return nil
    }

    /// Whether IIIF access tokens may be handed to a viewer at `origin`: one of `--auth-origins`, or the server's
    /// own (`own`) when none are listed.
    func mayReceiveTokens(_ origin: String, own: String) -> Bool {
        let listed = settings.authOrigins
        return listed.isEmpty ? origin.lowercased() == own.lowercased() : listed.contains { $0.lowercased() == origin.lowercased() }
    }

    /// Whether the client reached us over TLS, as a trusted proxy says: cookies are then `Secure`.
    func overTLS(_ request: HTTPRequest) -> Bool {
        fromTrustedProxy(request) && request.firstElement("x-forwarded-proto")?.lowercased() == "https"
    }

    /// A `Set-Cookie` header for `name`; an empty value with `maxAge` 0 deletes it. Where viewers of other origins
    /// may receive tokens (`--auth-origins`), the cookie is `SameSite=None; Secure`, so their frames of our sign-in
    /// and token pages carry it (browsers send such cookies over HTTPS only).
    func cookie(_ name: String, _ value: String, maxAge: Int, for request: HTTPRequest) -> HTTPHeader {
        let site = settings.authOrigins.isEmpty ? "SameSite=Lax" + (overTLS(request) ? "; Secure" : "") : "SameSite=None; Secure"
        return HTTPHeader(name: "Set-Cookie", value: "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; " + site)
    }

    /// Whether sign-in is a trusted proxy's (IIIF's `external` access service) rather than our own page.
    var externalSignIn: Bool { settings.usersFile == nil && !settings.trustedProxies.isEmpty }

    /// Whether `/metrics` may answer this request.
    func mayReadMetrics(_ request: HTTPRequest) -> Bool {
        guard let allowed = settings.metricsFrom else { return true }
        return allowed.contains { $0.contains(request.peer) }
    }
}
