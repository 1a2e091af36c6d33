import HTTPTransport
import POSIXSupport
import Pyramid

/// `/api/images` and `/api/images/{id}`: what images there are and how to address their tiles, a page at a time.
struct ImageAPIHandler: Sendable {
    static let defaultLimit = 1_000
    static let maxLimit = 10_000

    let tiles: TileService
    let library: ImageLibrary
    let tileSize: Int
    /// The tile format setting: what `tiles` and `thumbnail` URLs name.
    let format: ImageFormat
    let publishLocation: Bool

    init(_ services: Services) {
        tiles = services.tiles
        library = services.tiles.library
        tileSize = services.tiles.options.tileSize
        format = services.tiles.options.format
        publishLocation = services.options.publishLocation
    }

    /// A page of the whole library in path order (`?limit=`, `?after=` from a `next` URL), or with `?folder=`
    /// one folder's images and its sub-folders. `next` is absent on the last page.
    func list(_ context: RequestContext) throws -> HandlerOutcome {
        let limit = try context.integer("limit", 1 ... Self.maxLimit, default: Self.defaultLimit)
        let folder = context.path.query["folder"].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        var after: LibraryKey?
        if let cursor = context.path.query["after"] {
            guard let key = LibraryKey(cursor: cursor) else { throw APIError.badRequest("after must be the value a next URL carries") }
            after = key
        }
        guard let page = library.page(folder: folder, after: after, limit: limit) else {
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
        members.append(("images", .array(page.images.compactMap { image in (try? library.summary(image.id)).map { .object(entry(image.id, $0)) } })))
        if let next = page.next {
            var query = ["limit=\(limit)"]
            if let folder { query.append("folder=" + URLPath.escape(folder)) }
            query.append("after=" + next.cursor)
            members.append(("next", .string("/api/images?" + query.joined(separator: "&"))))
        }
        let response = HTTPResponse.json(.object(members)).tagged()
        if page.images.count > Self.defaultLimit { System.releaseFreeMemory() }
        return .response(response.conditional(on: context.request))
    }

    /// One image's entry, with what its file says about itself (`metadata`: only the fields it carries; its
    /// location only while `--publish-location` is on).
    func one(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id")
        let image = try context.image(id, in: tiles)
        let snapshot = try context.snapshot(of: image)
        let metadata = try image.metadata(for: snapshot).published(location: publishLocation)
        return .response(.json(.object(entry(id, ImageSummary(snapshot)) + [("metadata", metadata.json)])))
    }

    /// An image's entry: its size, version and every URL it is served at (relative, versioned where they can be).
    private func entry(_ id: String, _ summary: ImageSummary) -> [(String, JSONValue)] {
        let g = PyramidGeometry(width: summary.width, height: summary.height, tileSize: tileSize)
        let version = summary.version
        let path = URLPath.escape(id)
        return [
            ("id", .string(id)),
            ("version", .string(version)),
            ("width", .int(g.width)),
            ("height", .int(g.height)),
            ("tileSize", .int(g.tileSize)),
            ("maxLevel", .int(g.maxLevel)),
            ("format", .string(format.fileExtension)),
            ("source", .string(summary.kind)),
            ("folder", .string(LibraryKey.folder(of: id))),
            ("tiles", .string(URLPath.tiles(id, version: version, format: format))),
            ("dzi", .string(URLPath.versioned("/images/\(path).dzi", version))),
            ("iiif", .string("/iiif/3/\(path)@\(version)/info.json")),
            ("thumbnail", .string(URLPath.tile(id, TileCoordinate(level: g.thumbnailLevel, x: 0, y: 0), version: version,
                                                format: format))),
            ("manifest", .string(URLPath.manifest(id))),
            ("collection", .string(URLPath.collection(LibraryKey.folder(of: id)))),
        ]
    }
}
