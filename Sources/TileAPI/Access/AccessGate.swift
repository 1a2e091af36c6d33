import HTTPTransport
import Library
import Pyramid
import TileGeometry

/// What a route names, for the one access decision made before its handler runs.
enum RouteAccess: Sendable {
    /// Nothing of an image: health, the viewer's files, the sign-in pages.
    case open
    /// `/metrics`, which may be limited to some addresses.
    case metrics
    /// One image, by the capture that holds its id and how.
    case image(capture: String, form: IdForm)
    /// `/tiles/…`: the library's first image.
    case defaultImage
    /// Names images and folders: the handler leaves out what the identity may not know of.
    case listing

    enum IdForm: Sendable {
        /// The id as it is.
        case plain
        /// `{id}@{version}` or `{id}` (IIIF).
        case versioned
        /// `{id}.dzi`.
        case descriptor
        /// `{id}_files`.
        case deepZoomFiles
    }

    /// The image id a capture names in this form.
    /// (`TileURL`'s reading, which the fast path shares).
    static func id(_ capture: String, _ form: IdForm) -> String {
        if form == .plain { return capture }
        return TileURL.withBytes(capture) { bytes in
            let id = switch form {
            case .plain: bytes.indices
            case .versioned: TileURL.iiifIdentifier(bytes).id
            case .descriptor: TileURL.descriptorID(bytes) ?? bytes.indices
            case .deepZoomFiles: TileURL.deepZoomID(bytes) ?? bytes.indices
            }
            return String(decoding: bytes[id], as: UTF8.self)
        }
    }
}

/// What access control decided for one request, for handlers that need more than yes or no.
struct AccessView: Sendable {
    let control: AccessControl
    let identity: Identity
    /// For a route that names an image: the largest picture this identity may have of it.
    var decision: AccessDecision = .full
    /// Whether the image's original may be sent (its folder's `download`).
    var originals = true
    /// Whether a slide's label and macro may be sent (its folder's `slide_labels`).
    var slideLabels = false
    /// The answer depends on who asks: it goes out `Cache-Control: private` with `Vary: Cookie, Authorization`.
    var personal = false
    /// Why a `?share=` token in the query grants nothing, when it does not.
    var shareFailure: ShareToken.Failure?

    /// What this identity may see of image `id`; nil when there is no such image. May resolve the file's real
    /// path: off the event loop.
    func decision(for id: String) -> AccessDecision? {
        access(to: id)?.decision
    }

    /// What this identity may see of image `id`, and whether its folder sends originals (`download`); nil when
    /// there is no such image. May resolve the file's real path: off the event loop.
    func access(to id: String) -> (decision: AccessDecision, downloads: Bool)? {
        guard let rule = try? control.rule(of: id, onLoop: false) else { return nil }
        return (identity.decision(for: id, rule: rule), rule.downloads)
    }

    /// Whether image `id`'s original may be sent to this identity: the whole picture is theirs and its folder
    /// allows downloads.
    func mayDownload(_ id: String) -> Bool {
        access(to: id).map { $0.downloads && $0.decision == .full } ?? false
    }

    /// Whether folder `path` is listed to this identity (hidden folders only to those they admit).
    func sees(folder path: String) -> Bool {
        guard control.restricts else { return true }
        return identity.sees(folder: path, rule: control.library.folderRule(path, in: control.policy))
    }

    /// Why folder `path` is listed to this identity with a lock (its photos are for groups it is not in), or nil
    /// when it is not locked: "signed in as bob; this folder is for the staff group", or that signing in is needed.
    func lock(folder path: String) -> String? {
        guard control.restricts else { return nil }
        let rule = control.library.folderRule(path, in: control.policy)
        guard identity.isLockedOut(of: path, rule: rule) else { return nil }
        return identity.signedIn ? identity.refusalNote("this folder", rule: rule) : "sign in to see this folder"
    }

    /// Why image `id` (shown as `name`) is refused to this signed-in identity, in words that say who they are and
    /// which group it is for; nil for someone not signed in (signing in is the answer) or an image it may see.
    func refusalNote(for id: String, name: String) -> String? {
        guard identity.signedIn, let rule = try? control.rule(of: id, onLoop: false),
              case .refused = identity.decision(for: id, rule: rule) else { return nil }
        return identity.refusalNote("'\(name)'", rule: rule)
    }

    /// Images in folder `path` and below that this identity may know of.
    func count(_ path: String) -> Int {
        let identity = identity
        let (policy, generation) = control.current
        return control.library.visibleCount(path, in: policy, generation: generation) { id, rule in
            identity.decision(for: id, rule: rule) != .hidden
        }
    }

    /// The refusal of a picture past what this identity may see.
    func refusal(_ what: String) -> APIError {
        control.refusals.count(.oversize)
        return .refused(signedIn: identity.signedIn, identity.signedIn
            ? "your account may not see \(what) at this size"
            : "sign in to see \(what) at this size")
    }

    /// What listings add for the viewer: who is signed in, else where to sign in when the server has users.
    var listingFields: [(String, JSONValue)] {
        if let user = identity.user { return [("user", .string(user))] }
        return control.settings.usersFile == nil ? [] : [("login", .string(AuthHandler.loginPath))]
    }
}

extension AccessControl {
    /// The decision for `context` on a route of kind `access`: the identity and what it may see (`context.access`),
    /// or the refusal thrown. An image route's image itself is admitted after this (`Admission`), with the limit
    /// decided here.
    func admit(_ context: RequestContext, _ access: RouteAccess) throws -> RequestContext {
        if fromTrustedProxy(context.request), let ambiguity = ambiguity(context.request) { throw ambiguity }
        var (identity, shareFailure) = identity(of: context.request, query: context.path.query)
        if shareFailure == .unlisted {
            // A link made a moment ago: the list is read now rather than at the next second's look (off the loop).
            if context.onLoop { throw NeedsFile() }
            reload()
            (identity, shareFailure) = self.identity(of: context.request, query: context.path.query)
        }
        context.notes.user = identity.label
        if shareFailure != nil { refusals.count(.share) }
        var view = AccessView(control: self, identity: identity, shareFailure: shareFailure)
        switch access {
        case .open:
            break
        case .metrics:
            guard mayReadMetrics(context.request) else {
                refusals.count(.metrics)
                throw APIError.refused(signedIn: true, "/metrics is not served to this address")
            }
        case .listing:
            view.personal = restricts
        case .defaultImage, .image:
            guard let id = Admission.id(context, access, library: library) else { throw Admission.missing(context, access) }
            // No rule: no such image, answered below exactly as a hidden one is.
            guard let rule = try rule(of: id, onLoop: context.onLoop) else { throw Admission.missing(context, access) }
            view.personal = !rule.isOpen
            view.originals = rule.downloads
            view.slideLabels = rule.slideLabels
            view.decision = identity.decision(for: id, rule: rule)
            switch view.decision {
            case .full, .limited: break
            case .hidden:
                refusals.count(.hidden)
                throw Admission.missing(context, access)
            case let .refused(signedIn):
                refusals.count(signedIn ? .forbidden : .unauthenticated)
                throw APIError.refused(signedIn: signedIn, signedIn ? identity.refusalNote("image '\(id)'", rule: rule) : "sign in to see image '\(id)'",
                                       services: AuthHandler.services(origin: context.origin, id: id, external: externalSignIn))
            }
        }
        var admitted = context
        admitted.access = view
        return admitted
    }

    /// `response` as sent to someone whose answer depends on who they are: cacheable by them alone.
    static func personal(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        var cacheControl = "private, no-cache"
        if let i = response.headers.firstIndex(where: { $0.name.lowercased() == "cache-control" }) {
            let old = response.headers[i].value
            cacheControl = old.hasPrefix("public") ? "private" + old.dropFirst(6) : old.hasPrefix("private") ? old : "private, " + old
            response.headers.remove(at: i)
        }
        response.headers.append(HTTPHeader(name: "Cache-Control", value: cacheControl))
        response.headers.append(HTTPHeader(name: "Vary", value: "Cookie, Authorization"))
        return response
    }
}
