import HTTPTransport

/// What a request's `?v=` (the image version the API handed out) means for its answer. A URL with the current
/// version never changes, so it may be cached for a year; one with an old version is sent to the current one,
/// so a replaced photo is never shown as a mix of old and new tiles; one with none gets the short max-age.
/// An old version is thrown as `APIError.staleVersion`, which `APIError.response` makes the 307.
enum VersionCheck: Equatable {
    case unversioned
    case current

    init(_ context: RequestContext, current version: String) throws(APIError) {
        guard let asked = context.path.query["v"] else {
            self = .unversioned
            return
        }
        guard asked == version else { throw .staleVersion(location: URLPath.versioned(String(context.request.path), version)) }
        self = .current
    }

    /// `Cache-Control` for `current` (a year, immutable) or `unversioned` (`short`).
    func cacheControl(short: HTTPHeader) -> HTTPHeader {
        self == .current ? Self.immutable : short
    }

    static let immutable = HTTPHeader(name: "Cache-Control", value: "public, max-age=31536000, immutable")
}

extension URLPath {
    /// `path` with `?v=version` appended: how every URL the API hands out carries the image version.
    static func versioned(_ path: String, _ version: String) -> String {
        path + "?v=" + version
    }
}
