import HTTPTransport
import Library

#if canImport(Glibc)
import Glibc
#endif

/// Signing in and out, and IIIF Authorization Flow 2.0's services: `/auth/login` (form; also the `active`
/// access service), `/auth/logout`, `/auth/probe/{id}`, `/auth/token` (the access-token page that posts to a
/// viewer's window). Sign-in and sign-out refuse cross-site posts (`Origin`, `Sec-Fetch-Site`); failed sign-ins
/// are slowed by `LoginThrottle`.
struct AuthHandler: Sendable {
    static let loginPath = "/auth/login"
    static let authContext = "http://iiif.io/api/auth/2/context.json"

    let control: AccessControl?
    let library: ImageLibrary

    init(_ services: Services) {
        control = services.access
        library = services.library
    }

    private func required() throws -> AccessControl {
        guard let control, control.settings.usersFile != nil || !control.settings.trustedProxies.isEmpty else {
            throw APIError.notFound("signing in is off: the server was started without --users")
        }
        return control
    }

    /// GET: the form; POST: the attempt.
    func login(_ context: RequestContext) throws -> HandlerOutcome {
        let control = try required()
        let returnTo = Self.localPath(context.path.query["return"]) ?? "/"
        guard context.request.method == "POST" else {
            return .response(Self.html(AuthPages.login(returnTo: returnTo)))
        }
        guard Self.sameSite(context.request) else {
            control.refusals.count(.signIn)
            return .response(Self.html(AuthPages.login(message: "This form was sent from another site.", returnTo: "/"), status: .forbidden))
        }
        let form = FormFields.form(context.request.body) ?? [:]
        let name = form["username"] ?? "", password = form["password"] ?? ""
        let target = Self.localPath(form["return"]) ?? "/"
        let address = control.clientAddress(context.request)
        let wait = control.throttle.wait(address: address, user: name)
        if wait > 0 {
            control.refusals.count(.signIn)
            var response = Self.html(AuthPages.login(message: "Too many failed attempts: try again in \(wait) s.", returnTo: target), status: .tooManyRequests)
            response.headers.append(HTTPHeader(name: "Retry-After", value: String(wait)))
            return .response(response)
        }
        let user = GroupName.isValid(name) ? control.users.user(name) : nil
        let matches = PasswordHash.verify(password, against: user?.hash ?? PasswordHash.decoy)
        guard let user, matches else {
            control.throttle.failed(address: address, user: name)
            control.refusals.count(.signIn)
            return .response(Self.html(AuthPages.login(message: "Wrong user name or password.", returnTo: target), status: .unauthorized))
        }
        control.throttle.succeeded(address: address, user: name)
        let session = control.sessions.open(user: user.name, hash: user.hash, groups: user.groups)
        var response = HTTPResponse.text("signed in as \(user.name)\n", status: .seeOther)
        response.headers.append(HTTPHeader(name: "Location", value: target))
        response.headers.append(control.cookie(AccessControl.sessionCookie, session, maxAge: control.settings.sessionSeconds, for: context.request))
        response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-store"))
        return .response(response)
    }

    /// GET: a page with the sign-out button (IIIF's logout service opens it); POST: signs out.
    func logout(_ context: RequestContext) throws -> HandlerOutcome {
        let control = try required()
        let identity = control.identity(of: context.request, query: [:]).0
        guard context.request.method == "POST" else {
            return .response(Self.html(AuthPages.logout(signedIn: identity.session != nil ? identity.user : nil)))
        }
        guard Self.sameSite(context.request) else {
            control.refusals.count(.signIn)
            return .response(Self.html(AuthPages.logout(signedIn: identity.user), status: .forbidden))
        }
        if let session = identity.session { control.sessions.close(session) }
        var response = HTTPResponse.text("signed out\n", status: .seeOther)
        response.headers.append(HTTPHeader(name: "Location", value: Self.localPath(FormFields.form(context.request.body)?["return"]) ?? "/auth/logout"))
        response.headers.append(control.cookie(AccessControl.sessionCookie, "", maxAge: 0, for: context.request))
        response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-store"))
        return .response(response)
    }

    /// IIIF's probe service of image `id`: always 200, the status for this identity inside.
    func probe(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id")
        var members: [(String, JSONValue)] = [("@context", .string(Self.authContext)), ("type", "AuthProbeResult2")]
        let decision: AccessDecision?
        var note: String?
        if let control {
            let identity = control.identity(of: context.request, query: context.path.query).0
            let rule = try control.rule(of: id, onLoop: false)
            decision = rule.map { identity.decision(for: id, rule: $0) }
            note = rule.map { identity.refusalNote("this image", rule: $0) }
        } else {
            decision = library.hasImage(id) ? .full : nil
        }
        switch decision {
        case .full?:
            members.append(("status", .int(200)))
        case let .limited(maxSize)?:
            let smaller: JSONValue = .object([
                ("id", .string(context.origin + "/iiif/3/\(URLPath.escape(id))/full/!\(maxSize),\(maxSize)/0/default.jpg")),
                ("type", "Image"), ("format", "image/jpeg"),
            ])
            members += [("status", .int(401)), ("location", smaller), ("substitute", .array([smaller])),
                        ("heading", ManifestMetadata.text("Sign in to see full resolution")),
                        ("note", ManifestMetadata.text("Everyone may see this image up to \(maxSize) pixels."))]
        case let .refused(signedIn)?:
            members += [("status", .int(signedIn ? 403 : 401)),
                        ("heading", ManifestMetadata.text(signedIn ? "Not for this account" : "Sign in to see this image"))]
            // Who is signed in and what is missing ("Signed in as bob; this image is for the staff group").
            if signedIn, let note { members.append(("note", ManifestMetadata.text(note.prefix(1).uppercased() + note.dropFirst()))) }
        case .hidden?, nil:
            members += [("status", .int(404)), ("heading", ManifestMetadata.text("No such image"))]
        }
        var response = HTTPResponse.json(.object(members))
        response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-store"))
        return .response(response)
    }

    /// IIIF's access-token service: a page, framed by the viewer, that posts a token for this browser's session
    /// (or why there is none) to the viewer's window, at the `origin` it named and nowhere else.
    func token(_ context: RequestContext) throws -> HandlerOutcome {
        let control = try required()
        let query = context.path.query
        guard let origin = query["origin"], AccessSettings.isOrigin(origin) else {
            throw APIError.badRequest("origin must be the viewer's origin (scheme://host[:port])")
        }
        let messageId = query["messageId"] ?? ""
        guard control.mayReceiveTokens(origin, own: context.origin) else {
            control.refusals.count(.origin)
            let refusal: JSONValue = .object([("@context", .string(Self.authContext)), ("type", "AuthAccessTokenError2"),
                                              ("profile", "invalidOrigin"), ("messageId", .string(messageId)),
                                              ("heading", ManifestMetadata.text("This viewer may not receive access tokens")),
                                              ("note", ManifestMetadata.text("The server lists the viewers it gives tokens to (--auth-origins)."))])
            var response = Self.html(AuthPages.token(refusal.serialized.replacingLessThan(), origin: origin))
            response.headers.removeAll { $0.name == "X-Frame-Options" }
            return .response(response)
        }
        let identity = control.identity(of: context.request, query: [:]).0
        // A user the trusted proxy named has no session of ours: one is opened for the token (the `external` profile).
        let session = identity.session ?? identity.user.map { control.sessions.open(user: $0, hash: "", groups: Array(identity.groups)) }
        let message: JSONValue
        if let session {
            message = .object([("@context", .string(Self.authContext)), ("type", "AuthAccessToken2"),
                               ("accessToken", .string(control.sessions.accessToken(for: session, origin: origin))),
                               ("expiresIn", .int(control.settings.sessionSeconds)), ("messageId", .string(messageId))])
        } else {
            message = .object([("@context", .string(Self.authContext)), ("type", "AuthAccessTokenError2"),
                               ("profile", "missingAspect"), ("messageId", .string(messageId)),
                               ("heading", ManifestMetadata.text("Not signed in"))])
        }
        let json = message.serialized.replacingLessThan()
        // Framed by the viewer, wherever it runs: the one page here that may be (its message goes to `origin` only).
        var response = Self.html(AuthPages.token(json, origin: origin))
        response.headers.removeAll { $0.name == "X-Frame-Options" }
        return .response(response)
    }

    /// The services of IIIF Authorization Flow 2.0 for image `id`, as `info.json` and manifests list them.
    static func services(origin: String, id: String, external: Bool) -> JSONValue {
        .array([.object([
            ("id", .string(origin + "/auth/probe/" + URLPath.escape(id))),
            ("type", "AuthProbeService2"),
            ("service", .array([.object([
                ("id", .string(origin + (external ? "/auth/external" : loginPath + "?return=%2Fauth%2Fdone"))),
                ("type", "AuthAccessService2"),
                ("profile", .string(external ? "external" : "active")),
                ("label", ManifestMetadata.text("Sign in")),
                ("heading", ManifestMetadata.text("Sign in to see this image")),
                ("confirmLabel", ManifestMetadata.text("Sign in")),
                ("service", .array([
                    .object([("id", .string(origin + "/auth/token")), ("type", "AuthAccessTokenService2")]),
                    .object([("id", .string(origin + "/auth/logout")), ("type", "AuthLogoutService2"),
                             ("label", ManifestMetadata.text("Sign out"))]),
                ])),
            ])])),
        ])])
    }

    /// The window the access service opened closes itself after signing in.
    func done(_ context: RequestContext) throws -> HandlerOutcome {
        .response(Self.html(AuthPages.done))
    }

    /// The `external` access service, for sign-in by a trusted proxy: nothing to do here but say so.
    func external(_ context: RequestContext) throws -> HandlerOutcome {
        .response(Self.html(AuthPages.page(title: "Sign in", body: "<h1>Sign in</h1><p>This server takes who you are from your organisation's single sign-on. Sign in there, then close this window.</p>")))
    }

    static func html(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse.text(text, status: status, contentType: "text/html; charset=utf-8")
        response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-store"))
        response.headers.append(HTTPHeader(name: "X-Frame-Options", value: "DENY"))
        return response
    }

    /// A path on this server (`/…`, not `//host`), else nil: where a sign-in may send the browser next.
    static func localPath(_ text: String?) -> String? {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"),
              !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return text
    }

    /// Whether a form post came from this site: its `Origin` (when sent) names the host it was sent to, and
    /// `Sec-Fetch-Site` (when sent) is same-origin or none.
    static func sameSite(_ request: HTTPRequest) -> Bool {
        if let site = request.header("sec-fetch-site"), site != "same-origin", site != "none" { return false }
        guard let origin = request.header("origin") else { return true }
        let host = request.firstElement("x-forwarded-host") ?? request.header("host") ?? ""
        guard let schemeEnd = origin.firstRange(of: "://") else { return false }
        return origin[schemeEnd.upperBound...] == host
    }
}

extension String {
    /// `<` as `\u003c`: JSON that stays JSON inside a `<script>` element.
    func replacingLessThan() -> String {
        var out = ""
        for c in unicodeScalars { if c == "<" { out += "\\u003c" } else { out.unicodeScalars.append(c) } }
        return out
    }
}
