import HTTPTransport
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Files of the viewer: the copy compiled into the binary, or the `--public` folder. Paths arrive decoded and free of
/// `..`; in a folder, the resolved real path must still lie inside it, so a symbolic link cannot lead out either.
struct StaticFileHandler: Sendable {
    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
        "map": "application/json", "webmanifest": "application/manifest+json",
    ]

    let viewer: ViewerFiles
    /// Writes the addressed image's thumbnail into the top page (`/?image=ID`).
    let firstPicture: FirstPicture

    /// A folder is read from disk, so its requests run on the I/O pool; the embedded copy is answered in place.
    var readsFiles: Bool {
        if case .folder = viewer { true } else { false }
    }

    func serve(_ context: RequestContext) throws -> HandlerOutcome {
        let segments = context.path.segments
        if segments.first == "api" { throw APIError.notFound(Self.unknownAPI(segments)) }
        if segments.isEmpty, let access = context.access, context.path.query["share"] != nil {
            return try shared(context, access)
        }
        if segments.isEmpty, let moved = try renamed(context) { return .response(moved) }
        if segments.isEmpty, FirstPicture.wanted(context) {
            if context.onLoop { throw NeedsFile() }     // the thumbnail may be read from the store
            return try pageWithPicture(context)
        }
        return try serve(segments.joined(separator: "/"), context: context)
    }

    /// The top page opened from a share link: a clear page when the link no longer works; else the page, with
    /// the token kept in a cookie so every request the viewer makes carries it. The page is the same whatever
    /// `folder` or `image` the address names: what exists is the viewer's to ask, through the routes.
    private func shared(_ context: RequestContext, _ access: AccessView) throws -> HandlerOutcome {
        if let failure = access.shareFailure {
            return .response(AuthHandler.html(AuthPages.share(failure), status: failure == .invalid ? .forbidden : .gone))
        }
        if context.onLoop { throw NeedsFile() }
        let token = context.path.query["share"] ?? ""
        let page = try pageWithPicture(context)
        let cookie = access.control.cookie(AccessControl.shareCookie, token, maxAge: max(0, (access.identity.share?.expires ?? 0) - Int(time(nil))),
                                           for: context.request)
        return page.map { response in
            var response = response
            response.headers.append(cookie)
            return response
        }
    }

    /// 301 to the same address with today's id or folder path, for a page address (`/?image=`, `/?folder=`)
    /// naming an image or folder as an earlier version named it (`ImageLibrary.renamedID`); nil when it names
    /// none the identity may know of, or one that is there.
    private func renamed(_ context: RequestContext) throws -> HTTPResponse? {
        let library = firstPicture.library, query = context.path.query
        let image = query["image"].flatMap { library.hasImage($0) ? nil : $0 }
        let folder = query["folder"].flatMap { library.folderName($0) == nil ? $0 : nil }
        guard image != nil || folder != nil else { return nil }
        if context.onLoop { throw NeedsFile() }
        let moved: (name: String, value: String)?
        if let image, let new = library.renamedID(image), context.access?.decision(for: new).map({ if case .hidden = $0 { false } else { true } }) ?? true {
            moved = ("image", new)
        } else if let folder, let new = library.renamedFolder(folder), context.access?.sees(folder: new) ?? true {
            moved = ("folder", new)
        } else {
            moved = nil
        }
        guard let moved else { return nil }
        var response = HTTPResponse.text("this address's id has changed\n", status: .movedPermanently)
        response.headers.append(HTTPHeader(name: "Location", value: "/?" + URLPath.replacing(moved.name, with: moved.value, in: context.request.query)))
        return response
    }

    /// The top page with the addressed image's thumbnail written in, or the page as it is when none is at hand.
    private func pageWithPicture(_ context: RequestContext) throws -> HandlerOutcome {
        let (bytes, etag): ([UInt8], String)
        switch viewer {
        case let .embedded(files):
            guard let file = files.file("index.html") else { throw APIError.notFound("no such file: /index.html") }
            (bytes, etag) = file
        case .folder(let root):
            guard let file = try read("index.html", in: root) else { throw APIError.notFound("no such file: /index.html") }
            (bytes, etag) = file
        }
        let page = firstPicture.image(context).flatMap { firstPicture.page(bytes, etag: etag, image: $0) } ?? (bytes, etag)
        return .response(response(page.bytes, relative: "index.html", etag: page.etag).conditional(on: context.request))
    }

    /// What to say of an `/api/…` path no route takes. Mostly an id with folders written with plain slashes
    /// (`/api/images/2024/iceland/volna`): the id is one segment, its slashes escaped.
    static func unknownAPI(_ segments: [String]) -> String {
        let shown = "/" + segments.joined(separator: "/")
        guard segments.count > 3, segments[1] == "images" else { return "no such API route: \(shown)" }
        var id = Array(segments[2...]), action = ""
        if let last = id.last, ["viewport", "zoomrect", "viewport.jpg", "viewport.png", "viewport.webp"].contains(last) {
            action = "/" + id.removeLast()
        }
        let escaped = id.map { URLPath.escape($0) }.joined(separator: "%2F")
        return "no such API route: \(shown). An image id with folders is one path segment, its slashes written %2F: "
            + "/api/images/\(escaped)\(action)"
    }

    private func serve(_ path: String, context: RequestContext) throws -> HandlerOutcome {
        var relative = path
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        switch viewer {
        case let .embedded(files): return try embedded(relative, in: files, context: context)
        case .folder(let root): return try file(relative, in: root, context: context)
        }
    }

    private func embedded(_ relative: String, in files: EmbeddedFiles, context: RequestContext) throws -> HandlerOutcome {
        guard let (bytes, etag) = files.file(relative) else {
            if files.isFolder(relative) { return try embedded(relative + "/index.html", in: files, context: context) }
            throw APIError.notFound("no such file: /\(relative)")
        }
        return .response(response(bytes, relative: relative, etag: etag).conditional(on: context.request))
    }

    private func response(_ bytes: [UInt8], relative: String, etag: String) -> HTTPResponse {
        let ext = relative.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return HTTPResponse(contentType: Self.types[ext] ?? "application/octet-stream", body: bytes, headers: [
            HTTPHeader(name: "ETag", value: etag), HTTPHeader(name: "Cache-Control", value: "no-cache"),
        ])
    }

    private func file(_ relative: String, in root: String, context: RequestContext) throws -> HandlerOutcome {
        guard let (bytes, etag) = try read(relative, in: root) else { return try serve(relative + "/index.html", context: context) }
        return .response(response(bytes, relative: relative, etag: etag).conditional(on: context.request))
    }

    /// A regular file of the folder and its entity tag (size and modification time); nil for a folder.
    private func read(_ relative: String, in root: String) throws -> ([UInt8], String)? {
        guard let resolved = Posix.realPath(root + "/" + relative), resolved == root || resolved.hasPrefix(root + "/") else {
            throw APIError.notFound("no such file: /\(relative)")
        }
        var info = stat()
        guard stat(resolved, &info) == 0 else { throw APIError.notFound("no such file: /\(relative)") }
        if (info.st_mode & S_IFMT) == S_IFDIR { return nil }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw APIError.notFound("no such file: /\(relative)") }
        let fd = try FileDescriptor(readingAt: resolved)
        let bytes = try fd.read(count: Int(info.st_size), at: 0)
        return (bytes, "\"\(String(info.st_size, radix: 16))-\(String(info.st_mtim.tv_sec, radix: 16))\(String(info.st_mtim.tv_nsec, radix: 16))\"")
    }
}
