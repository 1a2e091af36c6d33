import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Files of the viewer folder (`public/`). Paths arrive decoded and free of `..`; the resolved real path must
/// still lie inside the folder, so a symbolic link cannot lead out of it either.
enum StaticFileHandler {
    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
        "map": "application/json", "webmanifest": "application/manifest+json",
    ]

    static func serve(_ context: RequestContext) throws -> HandlerOutcome {
        let root = context.app.publicRoot
        var relative = context.path.segments.joined(separator: "/")
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        guard let resolved = realPath(root + "/" + relative), resolved == root || resolved.hasPrefix(root + "/") else {
            throw APIError.notFound("no such file: /\(relative)")
        }
        var info = stat()
        guard stat(resolved, &info) == 0 else { throw APIError.notFound("no such file: /\(relative)") }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return try serve(RequestContext(request: context.request, path: try RequestPath(withIndex: context.path),
                                            captures: [:], app: context.app, notes: context.notes))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw APIError.notFound("no such file: /\(relative)") }
        let fd = try FileDescriptor(readingAt: resolved)
        let bytes = try fd.read(count: Int(info.st_size), at: 0)
        let ext = relative.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let etag = "\"\(String(info.st_size, radix: 16))-\(String(info.st_mtim.tv_sec, radix: 16))\(String(info.st_mtim.tv_nsec, radix: 16))\""
        let response = HTTPResponse(contentType: types[ext] ?? "application/octet-stream", body: bytes, headers: [
            HTTPHeader(name: "ETag", value: etag), HTTPHeader(name: "Cache-Control", value: "no-cache"),
        ])
        return .response(response.conditional(on: context.request))
    }

    /// `realpath(3)`, or nil when the path does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension RequestPath {
    /// The same path with `index.html` appended (a directory was asked for).
    init(withIndex other: RequestPath) throws(APIError) {
        self.init(segments: other.segments + ["index.html"], query: other.query)
    }

    init(segments: [String], query: [String: String]) {
        self.segments = segments
        self.query = query
    }
}
