import HTTPTransport
import POSIXSupport
import Pyramid
import ImageCodecs
import TileGeometry
import Library

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
    /// `--slide-labels`, for a server without an access file.
    let slideLabels: Bool

    init(_ services: Services) {
        tiles = services.tiles
        library = services.library
        tileSize = services.tiles.options.tileSize
        format = services.tiles.options.format
        publishLocation = services.options.publishLocation
        slideLabels = services.options.slideLabels
    }

    /// A page of the whole library in path order (`?limit=`, `?after=` from a `next` URL), or with `?folder=`
    /// one folder's images and its sub-folders. `next` is absent on the last page.
    func list(_ context: RequestContext) throws -> HandlerOutcome {
        if context.path.query["q"] != nil || context.path.query["sort"] != nil { return try search(context) }
        let limit = try context.integer("limit", 1 ... Self.maxLimit, default: Self.defaultLimit)
        let folder = context.path.query["folder"].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        var after: LibraryKey?
        if let cursor = context.path.query["after"] {
            guard let key = LibraryKey(cursor: cursor) else { throw APIError.badRequest("after must be the value a next URL carries") }
            after = key
        }
        guard let page = library.page(folder: folder, after: after, limit: limit), folder.map({ context.access?.sees(folder: $0) ?? true }) ?? true else {
            if let folder, let new = library.renamedFolder(folder), context.access?.sees(folder: new) ?? true {
                throw APIError.renamed(location: "/api/images?" + URLPath.replacing("folder", with: new, in: context.request.query))
            }
            throw APIError.notFound("no folder '\(folder ?? "")'")
        }
        let access = context.access
        var members: [(String, JSONValue)] = []
        if let folder {
            members += folderFields(folder, page, access)
        } else {
            members.append(("collection", .string(URLPath.collection(""))))
        }
        let (shown, next) = visiblePage(page, folder: folder, limit: limit, access)
        members.append(("images", .array(shown.map { image, decision -> JSONValue in
            switch decision {
            case .refused?: locked(image, note: access?.refusalNote(for: image.id, name: image.name))
            case let .limited(maxSize)?: listed(image, maxSize: maxSize, access)
            case .full?, .hidden?, nil: listed(image, access)
            }
        })))
        if let next {
            var query = ["limit=\(limit)"]
            if let folder { query.append("folder=" + URLPath.escape(folder)) }
            query.append("after=" + next.cursor)
            members.append(("next", .string("/api/images?" + query.joined(separator: "&"))))
        }
        members += access?.listingFields ?? []
        let response = HTTPResponse.json(.object(members)).tagged()
        if limit > Self.defaultLimit { System.releaseFreeMemory() }
        return .response(response.conditional(on: context.request))
    }

    /// Up to `limit` images from `page` on that the identity may know of, each with its decision, and the cursor of
    /// the next page: the key of the last one shown, and only when another it may know of follows. Images it may
    /// not know of are walked past (further pages read as needed), so neither a page's length, its cursor nor
    /// whether there is a next page says anything of them.
    func visiblePage(_ page: ImageLibrary.Page, folder: String?, limit: Int, _ access: AccessView?)
        -> (shown: [(ImageLibrary.Entry, AccessDecision?)], next: LibraryKey?) {
        guard let access, access.control.restricts else { return (page.images.map { ($0, nil) }, page.next) }
        var shown: [(ImageLibrary.Entry, AccessDecision?)] = []
        var batch = page
        while true {
            for image in batch.images {
                guard let decision = access.decision(for: image.id), decision != .hidden else { continue }
                if shown.count == limit { return (shown, shown.last?.0.key) }
                shown.append((image, decision))
            }
            guard let after = batch.next, let more = library.page(folder: folder, after: after, limit: Self.walkBatch) else { return (shown, nil) }
            batch = more
        }
    }

    /// Images read at a time while walking past those a listing leaves out.
    static let walkBatch = 512

    /// What a listing of `folder` says of the folder: its name, trail, collection and sub-folders (with counts
    /// and covers as `access` sees them).
    func folderFields(_ folder: String, _ page: ImageLibrary.Page, _ access: AccessView?) -> [(String, JSONValue)] {
        [("folder", .string(folder)), ("name", .string(library.folderName(folder) ?? "")), ("trail", trail(folder)),
         ("collection", .string(URLPath.collection(folder))),
         ("folders", .array(page.folders.filter { access?.sees(folder: $0.path) ?? true }.map { sub in
             let count = access.map { $0.count(sub.path) } ?? sub.count
             var fields: [(String, JSONValue)] = [("path", .string(sub.path)), ("name", .string(sub.name)), ("count", .int(count)),
                                                  ("images", .string("/api/images?folder=" + URLPath.escape(sub.path))),
                                                  ("collection", .string(URLPath.collection(sub.path)))]
             if let lock = access?.lock(folder: sub.path) { fields += [("locked", true), ("note", .string(lock))] }
             if let cover = sub.cover, access?.decision(for: cover)?.showsPixels ?? true,
                let summary = try? library.summary(cover), library.failure(of: cover) == nil {
                 fields.append(("cover", thumbnail(cover, summary)))
             }
             return .object(fields)
         }))]
    }

    /// A listed image: its entry, with `error` when its file cannot be shown (damaged, not an image, unreadable):
    /// such images are listed, not left out, so a viewer can say which files are wrong and why.
    /// `access`: who asks, for whether the original is offered (`download`).
    func listed(_ image: ImageLibrary.Entry, maxSize: Int? = nil, _ access: AccessView?) -> JSONValue {
        let downloads = maxSize == nil && (access?.mayDownload(image.id) ?? true)
        // The shot's camera raw, offered as a second download ("Original RAW") to whoever may have the original.
        let raw: [(String, JSONValue)] = downloads && (library.companions(ofPath: image.path)?.raw != nil || CameraCard.isRaw(image.path))
            ? [("raw", .string(URLPath.raw(image.id)))] : []
        do {
            return .object(entry(image.id, library.shownName(image), file: PathText.lastComponent(of: image.path), try library.summary(image.id),
                                 downloads: downloads) + raw + Self.access(maxSize: maxSize))
        } catch {
            var fields: [(String, JSONValue)] = [("id", .string(image.id)), ("folder", .string(LibraryKey.folder(of: image.id))),
                                                 ("name", .string(library.shownName(image))), ("file", .string(PathText.lastComponent(of: image.path)))]
            // A raw alone is not a broken file: it is a shot with no picture to show, and says how to give it one.
            if CameraCard.isRaw(image.path) {
                let kind = SourceFormat.unreadableFormat(fileName: image.path) ?? "camera raw"
                fields += [("rawOnly", true), ("error", .string("RAW without a preview: \(kind) files are not decoded here. "
                    + "A JPEG or HEIC of the same name beside it is shown instead, with this file as its Original RAW."))] + raw
            } else {
                fields.append(("error", .string(APIError.message(for: error))))
            }
            return .object(fields)
        }
    }

    /// A restricted image as those who may not see it get it: its name, with a lock, and no pixels or sizes; for a
    /// signed-in user, the `note` of who they are and which group it is for.
    func locked(_ image: ImageLibrary.Entry, note: String? = nil) -> JSONValue {
        .object([("id", .string(image.id)), ("folder", .string(LibraryKey.folder(of: image.id))), ("name", .string(image.name)),
                 ("locked", true), ("login", .string(AuthHandler.loginPath))] + (note.map { [("note", .string($0))] } ?? []))
    }

    /// For a tiered image: the size this identity may see it at.
    static func access(maxSize: Int?) -> [(String, JSONValue)] {
        guard let maxSize else { return [] }
        return [("maxSize", .int(maxSize)), ("login", .string(AuthHandler.loginPath))]
    }

    /// The folders from the top down to `folder`, each with its path and its name as written on disk.
    private func trail(_ folder: String) -> JSONValue {
        var paths: [String] = []
        var path = folder
        while !path.isEmpty {
            paths.append(path)
            path = LibraryKey.folder(of: path)
        }
        return .array(paths.reversed().map { path in
            .object([("path", .string(path)), ("name", .string(library.folderName(path) ?? ""))])
        })
    }

    /// The URL of image `id`'s one-tile thumbnail.
    private func thumbnail(_ id: String, _ summary: ImageSummary) -> JSONValue {
        let g = PyramidGeometry(width: summary.width, height: summary.height, tileSize: tileSize)
        return .string(URLPath.tile(id, TileCoordinate(level: g.thumbnailLevel, x: 0, y: 0), version: summary.version, format: format))
    }

    /// One image's entry, with what its file says about itself (`metadata`: only the fields it carries; its
    /// location only while `--publish-location` is on).
    func one(_ context: RequestContext) throws -> HandlerOutcome {
        let image = try context.admitted(), id = image.id
        let snapshot = try image.snapshot(context)
        let metadata = library.metadata(of: id, embedded: try image.metadata(for: snapshot)).published(location: publishLocation)
        let maxSize = image.limit.longSide
        return .response(.json(.object(entry(id, library.shownName(of: id) ?? id, file: library.fileName(of: id), ImageSummary(snapshot),
                                             downloads: image.mayDownload, physical: metadata.millimetresPerPixel)
                + Self.access(maxSize: maxSize)
                + (snapshot.source.slide.map { [("slide", $0.json(id: id, labels: AssociatedHandler.showsLabels(context, slideLabels)))] } ?? [])
                + [("metadata", metadata.json)])))
    }

    /// An image's entry: its name (`shownName`), its file's name, size, version and every URL it is served at
    /// (relative, versioned where they can be), `warning` when only part of its file can be shown, and `error`
    /// while its file is known to be broken.
    private func entry(_ id: String, _ name: String, file: String?, _ summary: ImageSummary, downloads: Bool,
                       physical: Double? = nil) -> [(String, JSONValue)] {
        let g = PyramidGeometry(width: summary.width, height: summary.height, tileSize: tileSize)
        let version = summary.version
        let path = URLPath.escape(id)
        return [
            ("id", .string(id)),
            ("name", .string(name)),
        ] + (file.map { [("file", .string($0))] } ?? []) + [
            ("version", .string(version)),
            ("width", .int(g.width)),
            ("height", .int(g.height)),
            ("tileSize", .int(g.tileSize)),
            ("maxLevel", .int(g.maxLevel)),
            // The format the store keeps this image's tiles in: what a viewer should ask for, so no tile is
            // transcoded per request.
            ("format", .string(tiles.options.storedFormat(hasAlpha: summary.hasAlpha).fileExtension)),
            ("source", .string(summary.kind)),
            ("folder", .string(LibraryKey.folder(of: id))),
            ("tiles", .string(URLPath.tiles(id, version: version, format: format))),
            ("dzi", .string(URLPath.versioned("/images/\(path).dzi", version))),
            ("iiif", .string("/iiif/3/\(path)@\(version)/info.json")),
            ("thumbnail", thumbnail(id, summary)),
            ("manifest", .string(URLPath.manifest(id))),
        ] + (summary.kind == "procedural" || !downloads ? [] : [("download", .string(URLPath.original(id)))]) + [
            ("collection", .string(URLPath.collection(LibraryKey.folder(of: id)))),
        ] + PhysicalScale.entry(physical ?? summary.millimetresPerPixel ?? library.millimetresPerPixel(of: id))
          + (summary.warning.map { [("warning", .string($0))] } ?? [])
          + (library.failure(of: id).map { [("error", .string($0.publicDescription))] } ?? [])
    }
}
