import POSIXSupport
import Pyramid

/// `/tiles/{z}/{x}/{y}[.jpg|.jpeg|.png]` and `/images/{id}/tiles/{z}/{x}/{y}.{jpg|png}`: parse, then the shared
/// tile service. A cached tile is answered on the event loop; a miss goes to the render pool.
enum TileHandler {
    static func defaultImage(_ context: RequestContext) throws -> HandlerOutcome {
        try serve(context, image: context.app.defaultImageID())
    }

    static func anyImage(_ context: RequestContext) throws -> HandlerOutcome {
        try serve(context, image: context.capture("id"))
    }

    static func serve(_ context: RequestContext, image id: String) throws -> HandlerOutcome {
        let (tile, format) = try TilePath.parse(z: context.capture("z"), x: context.capture("x"), y: context.capture("y"))
        return try serve(context, image: id, tile: tile, format: format)
    }

    /// The shared path for every protocol that names one tile: one cache look, then the hit or the render.
    static func serve(_ context: RequestContext, image id: String, tile: TileCoordinate, format: ImageFormat) throws -> HandlerOutcome {
        answer(try context.app.tiles.lookup(image: id, tile: tile, format: format), context: context)
    }

    /// The response to a cache look: a hit at once, a miss from the render pool. `headers` are added to either.
    /// A `?v=` that is not the image's current version gets a `307` to the current one, before any render;
    /// `versioned`: the caller already found the request names the current version in its own way (IIIF).
    static func answer(_ lookup: TileLookup, context: RequestContext, headers: [HTTPHeader] = [],
                       versioned: Bool = false) -> HandlerOutcome {
        let app = context.app, request = context.request, notes = context.notes
        switch lookup {
        case let .hit(tile):
            let check = versioned ? .current : VersionCheck(context, current: tile.version)
            if case let .stale(location) = check { return .response(VersionCheck.redirect(to: location)) }
            notes.cache = .hit
            return .response(response(tile, cacheControl: check.cacheControl(short: app.tileCacheControl), headers: headers)
                .conditional(on: request))
        case let .miss(miss):
            let check = versioned ? .current : VersionCheck(context, current: miss.version)
            if case let .stale(location) = check { return .response(VersionCheck.redirect(to: location)) }
            let cacheControl = check.cacheControl(short: app.tileCacheControl)
            return .deferred {
                let started = MonotonicClock.seconds()
                do {
                    let answer = try app.tiles.render(miss)
                    if answer.origin == .rendered { app.metrics.rendered(seconds: MonotonicClock.seconds() - started) }
                    notes.cache = answer.cacheHit ? .hit : .miss
                    return response(answer.tile, cacheControl: cacheControl, headers: headers).conditional(on: request)
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
