import HTTPTransport
import POSIXSupport
import Pyramid
import ImageCodecs
import TileGeometry

/// `/tiles/{z}/{x}/{y}[.jpg|.jpeg|.png]`, `/images/{id}/tiles/{z}/{x}/{y}.{jpg|png}` and an image's thumbnail:
/// parse, then the shared tile service. A cached tile is answered on the event loop; a miss goes to the render pool.
struct TileHandler: Sendable {
    let tiles: TileService
    let metrics: Metrics
    /// `Cache-Control` of tiles whose URL names no version.
    let cacheControl: HTTPHeader

    init(_ services: Services) {
        tiles = services.tiles
        metrics = services.metrics
        cacheControl = services.tileCacheControl
    }

    /// `/tiles/{z}/{x}/{y}`: the first image in library order, as admitted.
    func defaultImage(_ context: RequestContext) throws -> HandlerOutcome {
        try serve(context)
    }

    func anyImage(_ context: RequestContext) throws -> HandlerOutcome {
        try serve(context)
    }

    /// `/images/{id}/thumbnail[.jpg|.png|.webp]`: the image's one-tile level, the same bytes and cache entry as
    /// that tile. For a page that knows an image's id but not yet its size: the viewer's first frame asks for
    /// it while the listing that names the tile is still on its way.
    func thumbnail(_ context: RequestContext) throws -> HandlerOutcome {
        let image = try context.admitted(), name = context.capture("name")
        guard let format = try TilePath.thumbnail(name, plain: tiles.options.format) else {
            throw APIError.notFound("no such file: /images/\(image.id)/\(name)")
        }
        let snapshot = try image.snapshot(context)
        let tile = TileCoordinate(level: snapshot.geometry.thumbnailLevel, x: 0, y: 0)
        return try answer(image.lookup(snapshot, tile: tile, format: format), context: context, unversioned: Self.revalidate)
    }

    /// The thumbnail alias without `?v=` names whatever the file holds now: browsers ask again each time (a 304
    /// while it has not changed) instead of keeping an old picture for the tiles' max-age.
    static let revalidate = HTTPHeader(name: "Cache-Control", value: "no-cache")

    private func serve(_ context: RequestContext) throws -> HandlerOutcome {
        let (tile, format) = try TilePath.parse(z: context.capture("z"), x: context.capture("x"), y: context.capture("y"),
                                                plain: tiles.options.format)
        return try serve(context, tile: tile, format: format)
    }

    /// The shared path for every protocol that names one tile: one cache look (the admitted image's, which
    /// refuses a level past its limit), then the hit or the render.
    func serve(_ context: RequestContext, tile: TileCoordinate, format: ImageFormat) throws -> HandlerOutcome {
        let image = try context.admitted()
        return try answer(image.lookup(try image.snapshot(context), tile: tile, format: format), context: context)
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
