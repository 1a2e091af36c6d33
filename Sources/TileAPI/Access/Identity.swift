import Library

/// Who is asking, as access control established it from the request alone (session cookie or bearer token,
/// a trusted proxy's header, a share link's token), before any handler runs.
struct Identity: Sendable, Equatable {
    /// The signed-in user, by session or by a trusted proxy.
    var user: String?
    var groups: Set<String> = []
    /// The session behind a cookie or a IIIF access token.
    var session: String?
    /// A valid share link's token (query or cookie).
    var share: ShareToken?

    static let anonymous = Identity()

    var signedIn: Bool { user != nil }

    /// What the access log names: the user, else the share link's id, else `-`.
    var label: String { user ?? share.map { "share:" + $0.id } ?? "-" }

    /// What this identity may see of an image under `rule`.
    func decision(for id: String, rule: FolderRule) -> AccessDecision {
        if rule.isOpen { return .full }
        if let share, rule.shareable, share.grants(image: id) { return .full }
        if rule.admits(signedIn: signedIn, memberOf: groups) { return .full }
        switch rule.view {
        case .public: return .limited(maxSize: rule.maxPublicSize ?? 0)
        case .restricted: return .refused(signedIn: signedIn)
        case .hidden: return .hidden
        }
    }

    /// Why a signed-in identity may not see `what` under `rule`, in words that say who they are and what is missing:
    /// "signed in as bob; image 'x' is for the staff group".
    func refusalNote(_ what: String, rule: FolderRule) -> String {
        let lists = rule.groups.map { list in
            list.contains("*") ? "any signed-in user" : "the " + list.joined(separator: " or ") + " group" + (list.count > 1 ? "s" : "")
        }
        let needs = lists.isEmpty ? "not shown at this size" : "for " + lists.joined(separator: " and ")
        return "signed in as \(user ?? "someone"); \(what) is \(needs)"
    }

    /// Whether a folder under `rule` is for groups this identity is not in (its cell shows a lock): its photos
    /// are listed with a lock, or not at all.
    func isLockedOut(of path: String, rule: FolderRule) -> Bool {
        rule.view != .public && !rule.admits(signedIn: signedIn, memberOf: groups) && !(share?.reaches(folder: path) ?? false)
    }

    /// Whether a folder under `rule` is listed at all: hidden folders only to those they admit (or a share link
    /// that reaches into them).
    func sees(folder path: String, rule: FolderRule) -> Bool {
        rule.view != .hidden || rule.admits(signedIn: signedIn, memberOf: groups) || (share?.reaches(folder: path) ?? false)
    }
}

/// The largest picture an identity may have of one image: all of it, up to a size, or none (refused: 401 to
/// someone not signed in, 403 to a signed-in user without the group; hidden: answered as missing).
enum AccessDecision: Sendable, Equatable {
    case full
    case limited(maxSize: Int)
    case refused(signedIn: Bool)
    case hidden

    /// Whether any pixels may be shown.
    var showsPixels: Bool {
        switch self {
        case .full, .limited: true
        case .refused, .hidden: false
        }
    }
}
