import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Files of the viewer: the copy compiled into the binary, or the `--public` folder. Paths arrive decoded and free of
/// `..`; in a folder, the resolved real path must still lie inside it, so a symbolic link cannot lead out either.
enum StaticFileHandler {
    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
        "map": "application/json", "webmanifest": "application/manifest+json",
    ]

    static func serve(_ context: RequestContext) throws -> HandlerOutcome {
        var relative = context.path.segments.joined(separator: "/")
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        switch context.app.viewer {
        case .embedded: return try embedded(relative, context: context)
        case .folder(let root): return try file(relative, in: root, context: context)
        }
    }

    private static func embedded(_ relative: String, context: RequestContext) throws -> HandlerOutcome {
        guard let (bytes, etag) = ViewerFiles.embeddedFile(relative) else {
            if ViewerFiles.isEmbeddedFolder(relative) { return try embedded(relative + "/index.html", context: context) }
            throw APIError.notFound("no such file: /\(relative)")
        }
        return .response(response(bytes, relative: relative, etag: etag).conditional(on: context.request))
    }

    private static func response(_ bytes: [UInt8], relative: String, etag: String) -> HTTPResponse {
        let ext = relative.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return HTTPResponse(contentType: types[ext] ?? "application/octet-stream", body: bytes, headers: [
            HTTPHeader(name: "ETag", value: etag), HTTPHeader(name: "Cache-Control", value: "no-cache"),
        ])
    }

    private static func file(_ relative: String, in root: String, context: RequestContext) throws -> HandlerOutcome {
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
        let etag = "\"\(String(info.st_size, radix: 16))-\(String(info.st_mtim.tv_sec, radix: 16))\(String(info.st_mtim.tv_nsec, radix: 16))\""
        return .response(response(bytes, relative: relative, etag: etag).conditional(on: context.request))
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
        slashed = []
    }
}
