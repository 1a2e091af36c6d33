/// What a request's `?v=` (the image version the API handed out) means for its answer. A URL with the current
/// version never changes, so it may be cached for a year; one with an old version is sent to the current one,
/// so a replaced photo is never shown as a mix of old and new tiles; one with none gets the short max-age.
enum VersionCheck: Equatable {
    case unversioned
    case current
    case stale(location: String)

    init(_ context: RequestContext, current version: String) {
        guard let asked = context.path.query["v"] else {
            self = .unversioned
            return
        }
        self = asked == version ? .current : .stale(location: URLPath.versioned(String(context.request.path), version))
    }

    /// The `307` for a stale version (temporary: the version moves again when the file does).
    static func redirect(to location: String) -> HTTPResponse {
        var response = HTTPResponse.text("this image has a newer version: \(location)\n", status: .temporaryRedirect)
        response.headers.append(HTTPHeader(name: "Location", value: location))
        response.headers.append(HTTPHeader(name: "Cache-Control", value: "no-cache"))
        return response
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
