import HTTPTransport
import POSIXSupport
import Library
import Pyramid
import ImageCodecs
import TileGeometry

/// `/tiles/{z}/{x}/{y}[.jpg|.jpeg|.png]`, `/images/{id}/tiles/{z}/{x}/{y}.{jpg|png}` and an image's thumbnail:
/// parse, then the shared tile service. A cached tile is answered on the event loop; a miss goes to the render pool.
struct TileHandler: Sendable {
    let tiles: TileService
    let library: ImageLibrary
    let metrics: Metrics
    /// `Cache-Control` of tiles whose URL names no version.
    let cacheControl: HTTPHeader

    init(_ services: Services) {
        tiles = services.tiles
        library = services.library
        metrics = services.metrics
        cacheControl = services.tileCacheControl
    }

    /// The first image in library order: what `/tiles/{z}/{x}/{y}` serves.
    func defaultImage(_ context: RequestContext) throws -> HandlerOutcome {
        guard let first = library.firstID else { throw APIError.notFound("no images are being served") }
        return try serve(context, image: first)
    }

    func anyImage(_ context: RequestContext) throws -> HandlerOutcome {
        try serve(context, image: context.capture("id"))
    }

    /// `/images/{id}/thumbnail[.jpg|.png|.webp]`: the image's one-tile level, the same bytes and cache entry as
    /// that tile. For a page that knows an image's id but not yet its size: the viewer's first frame asks for
    /// it while the listing that names the tile is still on its way.
    func thumbnail(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id"), name = context.capture("name")
        guard let format = try TilePath.thumbnail(name, plain: tiles.options.format) else {
            throw APIError.notFound("no such file: /images/\(id)/\(name)")
        }
        let image = try context.image(id, in: tiles), snapshot = try context.snapshot(of: image)
        let tile = TileCoordinate(level: snapshot.geometry.thumbnailLevel, x: 0, y: 0)
        try Self.allow(tile.level, of: snapshot.geometry, id: id, context)
        return try answer(tiles.lookup(image, snapshot: snapshot, tile: tile, format: format), context: context, unversioned: Self.revalidate)
    }

    /// The thumbnail alias without `?v=` names whatever the file holds now: browsers ask again each time (a 304
    /// while it has not changed) instead of keeping an old picture for the tiles' max-age.
    static let revalidate = HTTPHeader(name: "Cache-Control", value: "no-cache")

    private func serve(_ context: RequestContext, image id: String) throws -> HandlerOutcome {
        let (tile, format) = try TilePath.parse(z: context.capture("z"), x: context.capture("x"), y: context.capture("y"),
                                                plain: tiles.options.format)
        return try serve(context, image: id, tile: tile, format: format)
    }

    /// The shared path for every protocol that names one tile: one cache look, then the hit or the render.
    func serve(_ context: RequestContext, image id: String, tile: TileCoordinate, format: ImageFormat) throws -> HandlerOutcome {
        let image = try context.image(id, in: tiles)
        let snapshot = try context.snapshot(of: image)
        try Self.allow(tile.level, of: snapshot.geometry, id: id, context)
        return try answer(tiles.lookup(image, snapshot: snapshot, tile: tile, format: format), context: context)
    }

    /// Throws unless the identity may see level `level` (for a tiered image: one no larger than its public size).
    static func allow(_ level: Int, of geometry: PyramidGeometry, id: String, _ context: RequestContext) throws {
        guard let access = context.access, level >= 0, level <= geometry.maxLevel else { return }
        let size = geometry.levelSize(level)
        try access.allow(width: size.width, height: size.height, of: "image '\(id)'")
    }

    /// The response to a cache look: a hit at once, a miss from the render pool. `headers` are added to either.
    /// A `?v=` that is not the image's current version gets a `307` to the current one, before any render;
    /// `versioned`: the caller already found the request names the current version in its own way (IIIF);
    /// `unversioned`: the `Cache-Control` of an answer without `?v=`, when not the tiles' own.
    func answer(_ lookup: TileLookup, context: RequestContext, headers: [HTTPHeader] = [], versioned: Bool = false,
                unversioned: HTTPHeader? = nil) throws -> HandlerOutcome {
        let request = context.request, notes = context.notes
        let version = switch lookup {
        case let .hit(tile): tile.version
        case let .miss(miss): miss.version
        }
        let check = versioned ? .current : try VersionCheck(context, current: version)
        let cacheControl = check.cacheControl(short: unversioned ?? cacheControl)
        switch lookup {
        case let .hit(tile):
            notes.cache = .hit
            return .response(Self.response(tile, cacheControl: cacheControl, headers: headers).conditional(on: request))
        case let .miss(miss):
            let tiles = tiles, metrics = metrics
            return .work(on: .render) {
                let started = MonotonicClock.seconds()
                do {
                    let answer = try tiles.render(miss)
                    if answer.origin == .rendered { metrics.rendered(seconds: MonotonicClock.seconds() - started) }
                    notes.cache = answer.origin == .rendered ? .miss : .hit
                    return Self.response(answer.tile, cacheControl: cacheControl, headers: headers).conditional(on: request)
                } catch {
                    return APIError.response(for: error)
                }
            }
        }
    }

    static func response(_ tile: EncodedTile, cacheControl: HTTPHeader, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(contentType: tile.format.mimeType, body: tile.bytes,
                     headers: [HTTPHeader(name: "ETag", value: tile.etag), cacheControl] + headers)
    }
}
