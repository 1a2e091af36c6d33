import Pyramid

/// IIIF Image API 3.0 at compliance level 2: `info.json`, the base URI redirect, and image requests served
/// from the pyramid level nearest above the requested size through the shared tile path.
enum IIIFHandler {
    static let context = "http://iiif.io/api/image/3/context.json"

    /// `{scheme}://{host}/iiif/3/{id}` as the client addressed it (X-Forwarded-Proto/Host win over Host).
    static func serviceID(_ context: RequestContext, id: String) -> String {
        let request = context.request
        let scheme = request.header("x-forwarded-proto")?.split(separator: ",").first.map { $0.trimmingCharacters(in: " ") } ?? "http"
        let host = request.header("x-forwarded-host")?.split(separator: ",").first.map { $0.trimmingCharacters(in: " ") }
            ?? request.header("host") ?? "localhost:\(context.app.config.port)"
        return "\(scheme)://\(host)/iiif/3/\(URLPath.escape(id))"
    }

    static func redirect(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id")
        _ = try context.image(id)
        var response = HTTPResponse.text("see \(serviceID(context, id: id))/info.json\n", status: .seeOther)
        response.headers.append(HTTPHeader(name: "Location", value: serviceID(context, id: id) + "/info.json"))
        return .response(response)
    }

    static func info(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id")
        let image = try context.image(id)
        let g = try image.current().geometry
        let limits = IIIFRequest.limits(width: g.width, height: g.height, maxZoom: context.app.config.maxZoom)
        let sizes = (0 ... g.maxLevel).map { g.levelSize($0) }.filter { max($0.width, $0.height) <= 2048 }
        var features: [JSONValue] = ["mirroring"]
        if context.app.config.maxZoom > 1 { features.append("sizeUpscaling") }
        let document: JSONValue = .object([
            ("@context", .string(Self.context)),
            ("id", .string(serviceID(context, id: id))),
            ("type", "ImageService3"),
            ("protocol", "http://iiif.io/api/image"),
            ("profile", "level2"),
            ("width", .int(g.width)),
            ("height", .int(g.height)),
            ("maxWidth", .int(limits.maxWidth)),
            ("maxHeight", .int(limits.maxHeight)),
            ("maxArea", .int(limits.maxArea)),
            ("tiles", .array([.object([("width", .int(g.tileSize)),
                                       ("scaleFactors", .array((0 ... g.maxLevel).map { .int(1 << $0) }))])])),
            ("sizes", .array(sizes.map { .object([("width", .int($0.width)), ("height", .int($0.height))]) })),
            ("extraFormats", .array([])),
            ("extraQualities", .array(["color", "gray", "bitonal"])),
            ("extraFeatures", .array(features)),
        ])
        var response = HTTPResponse.json(document)
        if (context.request.header("accept") ?? "").contains("application/ld+json") {
            response.contentType = "application/ld+json;profile=\"\(Self.context)\""
        }
        return .response(response)
    }

    static let profileLink = HTTPHeader(name: "Link", value: "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\"")

    /// An image request. One that names exactly one pyramid tile (what tiled viewers send) is that tile, from
    /// the shared cache; anything else is assembled from cached tiles of the nearest level, then transformed.
    static func image(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id")
        let image = try context.image(id)
        let snapshot = try image.current()
        let g = snapshot.geometry
        let request = try IIIFRequest(region: context.capture("region"), size: context.capture("size"),
                                      rotation: context.capture("rotation"), qualityFormat: context.capture("qf"),
                                      imageWidth: g.width, imageHeight: g.height,
                                      limits: IIIFRequest.limits(width: g.width, height: g.height, maxZoom: context.app.config.maxZoom))
        let app = context.app
        if request.isPlain,
           let tile = g.tile(exactly: request.region, outWidth: request.width, outHeight: request.height,
                             slack: request.sizeIsExplicit ? 0 : 1) {
            let lookup = try app.tiles.lookup(image, snapshot: snapshot, tile: tile, format: request.format)
            return TileHandler.answer(lookup, context: context, headers: [profileLink])
        }
        return .deferred {
            do {
                var pixels = try app.tiles.region(request.region, outWidth: request.width, outHeight: request.height,
                                                  of: image, in: snapshot)
                if request.mirror { pixels = pixels.mirrored() }
                pixels = pixels.rotated(quarterTurns: request.quarterTurns)
                switch request.quality {
                case .gray: pixels = pixels.gray(bitonal: false)
                case .bitonal: pixels = pixels.gray(bitonal: true)
                case .default, .color: break
                }
                let bytes = try ImageEncoder.encode(pixels, as: request.format, options: app.tiles.options)
                return HTTPResponse(contentType: request.format.mimeType, body: bytes, headers: [
                    profileLink, HTTPHeader(name: "Cache-Control", value: "public, max-age=\(app.config.tileMaxAge)"),
                ])
            } catch {
                return APIError.response(for: error)
            }
        }
    }
}
