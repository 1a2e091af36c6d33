import POSIXSupport
import Pyramid

/// `/api/images` and `/api/images/{id}`: what images there are and how to address their tiles, a page at a time.
enum ImageAPIHandler {
    static let defaultLimit = 1_000
    static let maxLimit = 10_000

    /// A page of the whole library in path order (`?limit=`, `?after=` from a `next` URL), or with `?folder=`
    /// one folder's images and its sub-folders. `next` is absent on the last page.
    static func list(_ context: RequestContext) throws -> HandlerOutcome {
        let limit = try context.integer("limit", 1 ... maxLimit, default: defaultLimit)
        let folder = context.path.query["folder"].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        var after: LibraryKey?
        if let cursor = context.path.query["after"] {
            guard let key = LibraryKey(cursor: cursor) else { throw APIError.badRequest("after must be the value a next URL carries") }
            after = key
        }
        guard let page = context.app.tiles.library.page(folder: folder, after: after, limit: limit) else {
            throw APIError.notFound("no folder '\(folder ?? "")'")
        }
        var members: [(String, JSONValue)] = []
        if let folder {
            members.append(("folder", .string(folder)))
            members.append(("collection", .string(URLPath.collection(folder))))
            members.append(("folders", .array(page.folders.map { sub in
                .object([("path", .string(sub.path)), ("count", .int(sub.count)),
                         ("images", .string("/api/images?folder=" + URLPath.escape(sub.path))),
                         ("collection", .string(URLPath.collection(sub.path)))])
            })))
        } else {
            members.append(("collection", .string(URLPath.collection(""))))
        }
        let library = context.app.tiles.library
        members.append(("images", .array(page.images.compactMap { try? describe($0.id, library.summary($0.id), context.app) })))
        if let next = page.next {
            var query = ["limit=\(limit)"]
            if let folder { query.append("folder=" + URLPath.escape(folder)) }
            query.append("after=" + next.cursor)
            members.append(("next", .string("/api/images?" + query.joined(separator: "&"))))
        }
        let response = HTTPResponse.json(.object(members)).tagged()
        if page.images.count > defaultLimit { System.releaseFreeMemory() }
        return .response(response.conditional(on: context.request))
    }

    static func one(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id")
        return .response(.json(try describe(id, context.app.tiles.library.summary(id), context.app)))
    }

    /// An image's entry: its size, version and every URL it is served at (relative, versioned where they can be).
    static func describe(_ id: String, _ summary: ImageSummary, _ app: Application) -> JSONValue {
        let g = PyramidGeometry(width: summary.width, height: summary.height, tileSize: app.config.tileSize)
        let version = summary.version
        let path = URLPath.escape(id)
        let thumbnail = g.thumbnailLevel
        return .object([
            ("id", .string(id)),
            ("version", .string(version)),
            ("width", .int(g.width)),
            ("height", .int(g.height)),
            ("tileSize", .int(g.tileSize)),
            ("maxLevel", .int(g.maxLevel)),
            ("format", .string(ImageFormat.jpeg.fileExtension)),
            ("source", .string(summary.kind)),
            ("folder", .string(LibraryKey.folder(of: id))),
            ("tiles", .string(URLPath.versioned("/images/\(path)/tiles/{z}/{x}/{y}.jpg", version))),
            ("dzi", .string(URLPath.versioned("/images/\(path).dzi", version))),
            ("iiif", .string("/iiif/3/\(path)@\(version)/info.json")),
            ("thumbnail", .string(URLPath.versioned("/images/\(path)/tiles/\(thumbnail)/0/0.jpg", version))),
            ("manifest", .string(URLPath.manifest(id))),
            ("collection", .string(URLPath.collection(LibraryKey.folder(of: id)))),
        ])
    }
}

extension PyramidGeometry {
    /// The largest level whose whole image is one tile: the pyramid's own thumbnail.
    var thumbnailLevel: Int {
        var level = maxLevel
        while level > 0, max(levelSize(level).width, levelSize(level).height) > tileSize { level -= 1 }
        return level
    }
}
