import Pyramid

/// `/tiles/{z}/{x}/{y}[.jpg|.jpeg|.png]` and `/images/{id}/tiles/{z}/{x}/{y}.{jpg|png}`: parse, then the shared
/// tile service. A cached tile is answered on the event loop; a miss goes to the render pool.
enum TileHandler {
    static func defaultImage(_ context: RequestContext) throws -> HandlerOutcome {
        try serve(context, image: context.app.defaultImageID)
    }

    static func anyImage(_ context: RequestContext) throws -> HandlerOutcome {
        try serve(context, image: context.capture("id"))
    }

    /// Parses `{z}/{x}/{y}` with an optional extension on y; JPEG when there is none.
    static func parse(z: String, x: String, y: String) throws(APIError) -> (TileCoordinate, ImageFormat) {
        var row = Substring(y)
        var format = ImageFormat.jpeg
        if let dot = y.lastIndex(of: ".") {
            switch y[y.index(after: dot)...].lowercased() {
            case "jpg", "jpeg": format = .jpeg
            case "png": format = .png
            default: throw .badRequest("tile format must be jpg, jpeg or png, not '\(y[y.index(after: dot)...])'")
            }
            row = y[..<dot]
        }
        guard let level = number(z), let column = number(x[...]), let line = number(row) else {
            throw .badRequest("tile address must be /{level}/{x}/{y} with non-negative integers, not \(z)/\(x)/\(y)")
        }
        return (TileCoordinate(level: level, x: column, y: line), format)
    }

    private static func number(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ (48 ... 57).contains($0) }) else { return nil }
        return Int(text)
    }

    static func serve(_ context: RequestContext, image id: String) throws -> HandlerOutcome {
        let (tile, format) = try parse(z: context.capture("z"), x: context.capture("x"), y: context.capture("y"))
        return try serve(context, image: id, tile: tile, format: format)
    }

    /// The shared path for every protocol that names one tile.
    static func serve(_ context: RequestContext, image id: String, tile: TileCoordinate, format: ImageFormat) throws -> HandlerOutcome {
        let app = context.app
        guard app.tiles.image(id) != nil else { throw APIError.notFound("no image with id '\(id)'") }
        if let hit = try app.tiles.cached(image: id, tile: tile, format: format) {
            return .response(response(hit, cache: "hit", app: app).conditional(on: context.request))
        }
        let request = context.request
        return .deferred {
            let started = Clock.seconds()
            do {
                let answer = try app.tiles.tile(image: id, tile: tile, format: format)
                if answer.origin == .rendered { app.metrics.rendered(seconds: Clock.seconds() - started) }
                return response(answer.tile, cache: answer.cacheHit ? "hit" : "miss", app: app).conditional(on: request)
            } catch {
                return APIError.response(for: error)
            }
        }
    }

    static func response(_ tile: EncodedTile, cache: String, app: Application) -> HTTPResponse {
        var response = HTTPResponse(contentType: tile.format.mimeType, body: tile.bytes, headers: [
            HTTPHeader(name: "ETag", value: tile.etag),
            HTTPHeader(name: "Cache-Control", value: "public, max-age=\(app.config.tileMaxAge)"),
        ])
        response.cache = cache
        return response
    }
}
