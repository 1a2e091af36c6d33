import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// `/api/images/{id}/viewport` and `/zoomrect`: the scroll-view maths as JSON, so the browser and curl agree.
struct ViewportHandler: Sendable {
    static let maxViewSide = 16_384

    let tiles: TileService
    let maxZoom: Double
    let prefetch: Prefetcher

    init(_ services: Services) {
        tiles = services.tiles
        maxZoom = services.options.maxZoom
        prefetch = Prefetcher(services)
    }

    /// The format the query's `format` names for tile URLs (`jpg`, `png`, `webp`, `avif`: the viewer asks for WebP where the
    /// browser decodes it), else the tile format setting.
    private func format(_ context: RequestContext) throws -> ImageFormat {
        guard let text = context.path.query["format"] else { return tiles.options.format }
        guard let format = ImageFormat(fileExtension: text) else {
            throw APIError.badRequest("format must be jpg, png, webp or avif, not '\(text)'")
        }
        return format
    }

    /// How far past its public size a visitor limited by a tiered image may zoom (the picture drawn larger).
    static let publicUpscale = 4.0

    /// What a view of an image is made with: the admitted image, the model, the image's version (tile URLs carry
    /// it) and, for a visitor limited by a tiered image, its public size.
    struct View {
        let image: AdmittedImage
        let model: ScrollViewModel
        let version: String
        let limited: Limited?
    }

    /// A view limited to a tiered image's public size: the size, the deepest level within it, and the public level
    /// between that one and the next (nil where the public size is that level's).
    struct Limited {
        let width: Int
        let height: Int
        let scale: Double
        let top: Int
        let level: PublicLevel?
    }

    /// The model for `width`/`height` of the query, the image it is for, and that image's version (tile URLs carry it).
    private func model(_ context: RequestContext) throws -> View {
        let image = try context.admitted()
        let width = try context.integer("width", 1 ... Self.maxViewSide)
        let height = try context.integer("height", 1 ... Self.maxViewSide)
        // `dpr`: the screen's device pixels per CSS pixel, clamped to 1…4 (a zoomed page or a retina screen sends
        // fractions); tiles are chosen for device pixels, zooms stay in CSS pixels.
        let ratio = try context.number("dpr", 0.01 ... 100) ?? 1
        let snapshot = try image.snapshot(context)
        // A tiered image seen by someone who may not have it all: its pixels come at its public size (tiles of the
        // deepest level within it, and over them the public level's), and the view may be zoomed past that, up to
        // `publicUpscale` times, the picture drawn larger; never below fit.
        let g = snapshot.geometry
        var zoomLimit = maxZoom, limited: Limited?
        if let scale = image.limit.maxScale(width: g.width, height: g.height), scale < 1 {
            let size = image.limit.largestSize(width: g.width, height: g.height)
            let fit = min(Double(width) / Double(g.width), Double(height) / Double(g.height))
            let devices = min(ScrollViewModel.pixelRatios.upperBound, max(ScrollViewModel.pixelRatios.lowerBound, ratio))
            zoomLimit = min(maxZoom, max(fit, Self.publicUpscale * scale / devices))
            limited = Limited(width: size.width, height: size.height, scale: scale, top: image.limit.topLevel(of: g),
                              level: PublicLevel(g, limit: image.limit))
        }
        let model = try ScrollViewModel(geometry: g, viewWidth: Double(width), viewHeight: Double(height), maxZoom: zoomLimit,
                                        pixelRatio: ratio, levelCap: limited?.top,
                                        fullZoom: limited.map { $0.scale / min(ScrollViewModel.pixelRatios.upperBound, max(1, ratio)) })
        return View(image: image, model: model, version: snapshot.version, limited: limited)
    }

    /// For a tiered image seen by someone who may not have it all: the deepest level within its public size
    /// (tiles of deeper levels, the prefetched next level among them, are not theirs); nil otherwise.
    static func topLevel(_ limit: OutputLimit, _ g: PyramidGeometry) -> Int? {
        limit.longSide == nil ? nil : limit.topLevel(of: g)
    }

    /// `layout` without the prefetched tiles past `topLevel`.
    static func allowed(_ layout: ViewportLayout, _ limit: OutputLimit, _ g: PyramidGeometry) -> ViewportLayout {
        guard let top = topLevel(limit, g) else { return layout }
        var layout = layout
        layout.prefetch.removeAll { $0.level > top }
        return layout
    }

    static func zoomRequest(_ context: RequestContext, required: Bool) throws(APIError) -> ZoomRequest {
        guard let text = context.path.query["zoom"] else {
            if required { throw .badRequest("zoom is required: a positive number, fit or max") }
            return .fit
        }
        guard let zoom = ZoomRequest(text) else { throw .badRequest("zoom must be a positive number, fit or max, not '\(text)'") }
        return zoom
    }

    func viewport(_ context: RequestContext) throws -> HandlerOutcome {
        let view = try model(context), model = view.model, image = view.image
        let layout = Self.allowed(model.layout(zoom: try Self.zoomRequest(context, required: false),
                                               centerX: try context.number("cx"), centerY: try context.number("cy")), image.limit, model.geometry)
        let format = try format(context)
        image.prefetch(layout.prefetch, format: format, with: prefetch, viewLevel: layout.level)
        return .response(.json(Self.encode(layout, image: image.id, version: view.version, view: model, format: format, limited: view.limited)))
    }

    func zoomRect(_ context: RequestContext) throws -> HandlerOutcome {
        let view = try model(context), model = view.model, image = view.image, version = view.version
        let format = try format(context)
        var result: ZoomResult
        if let rect = context.path.query["rect"] {
            let parts = rect.split(separator: ",").map { Double($0) }
            guard parts.count == 4, parts.allSatisfy({ $0 != nil && $0!.isFinite }), parts[2]! > 0, parts[3]! > 0 else {
                throw APIError.badRequest("rect must be X,Y,W,H in image pixels with W and H above 0, not '\(rect)'")
            }
            result = model.zoom(to: ViewRect(x: parts[0]!, y: parts[1]!, width: parts[2]!, height: parts[3]!))
        } else {
            let zoom = model.zoom(for: try Self.zoomRequest(context, required: true))
            guard let x = try context.number("x"), let y = try context.number("y") else {
                throw APIError.badRequest("x and y are required: the tapped point in image pixels")
            }
            let modeText = context.path.query["mode"] ?? "step"
            guard let mode = ZoomResult.Mode(rawValue: modeText), mode != .rect else {
                throw APIError.badRequest("mode must be step or toggle, not '\(modeText)'")
            }
            let factor = try context.number("factor", 0.01 ... 64) ?? 1.5
            result = model.doubleTap(zoom: zoom, x: x, y: y, mode: mode, factor: factor)
        }
        result.layout = Self.allowed(result.layout, image.limit, model.geometry)
        image.prefetch(result.layout.prefetch, format: format, with: prefetch, viewLevel: result.layout.level)
        var members: [(String, JSONValue)] = [("mode", .string(result.mode.rawValue))]
        if let from = result.fromZoom { members.append(("fromZoom", .double(from))) }
        members += [("zoom", .double(result.zoom)), ("rect", Self.rect(result.rect)),
                    ("viewport", Self.encode(result.layout, image: image.id, version: version, view: model, format: format, limited: view.limited))]
        return .response(.json(.object(members)))
    }

    static func encode(_ layout: ViewportLayout, image id: String, version: String, view: ScrollViewModel,
                       format: ImageFormat = .jpeg, limited: Limited? = nil) -> JSONValue {
        func url(_ t: TileCoordinate) -> JSONValue {
            .string(URLPath.tile(id, t, version: version, format: format))
        }
        var tiles = layout.tiles.map { t in
            JSONValue.object([("level", .int(t.tile.level)), ("x", .int(t.tile.x)), ("y", .int(t.tile.y)), ("url", url(t.tile)),
                              ("screen", Self.rect(t.screen))])
        }
        var level = layout.level, levelScale = layout.levelScale
        // Zoomed past the deepest level within the public size: the public level's tiles, each placed by the region
        // of the image it shows (`image`, image pixels), numbered one above that level.
        if let limited, let pub = limited.level, layout.zoom * view.pixelRatio > layout.levelScale * (1 + 1e-9) {
            level = limited.top + 1
            levelScale = pub.scale
            tiles = pub.tiles(covering: layout.visible).map { t in
                let r = t.region
                let screen = ViewRect(x: layout.inset.left + (Double(r.x) - layout.visible.x) * layout.zoom,
                                      y: layout.inset.top + (Double(r.y) - layout.visible.y) * layout.zoom,
                                      width: Double(r.width) * layout.zoom, height: Double(r.height) * layout.zoom)
                return .object([("level", .int(level)), ("x", .int(t.x)), ("y", .int(t.y)),
                                ("url", .string(URLPath.publicTile(id, t, version: version, format: format))),
                                ("screen", Self.rect(screen)), ("image", .object([("x", .int(r.x)), ("y", .int(r.y)),
                                                                                  ("width", .int(r.width)), ("height", .int(r.height))]))])
            }
        }
        let publicSize: [(String, JSONValue)] = limited.map { l in
            [("public", .object([("width", .int(l.width)), ("height", .int(l.height)), ("scale", .double(l.scale))]))]
        } ?? []
        return .object([
            ("image", .string(id)),
            ("width", .double(view.viewWidth)),
            ("height", .double(view.viewHeight)),
            ("zoom", .double(layout.zoom)),
            ("fit", .bool(layout.isFit)),
            ("dpr", .double(view.pixelRatio)),
            ("minZoom", .double(layout.minZoom)),
            ("maxZoom", .double(layout.maxZoom)),
            ("fitZoom", .double(view.fitZoom)),
            ("level", .int(level)),
            ("levelScale", .double(levelScale)),
            ("tileSize", .int(layout.tileSize)),
            ("center", .object([("x", .double(layout.center.x)), ("y", .double(layout.center.y))])),
            ("visible", Self.rect(layout.visible)),
            ("inset", .object([("top", .double(layout.inset.top)), ("left", .double(layout.inset.left)),
                               ("bottom", .double(layout.inset.bottom)), ("right", .double(layout.inset.right))])),
            ("tiles", .array(tiles)),
            ("prefetch", .array(layout.prefetch.map { t in
                .object([("level", .int(t.level)), ("x", .int(t.x)), ("y", .int(t.y)), ("url", url(t))])
            })),
        ] + publicSize)
    }

    static func rect(_ r: ViewRect) -> JSONValue {
        .object([("x", .double(r.x)), ("y", .double(r.y)), ("width", .double(r.width)), ("height", .double(r.height))])
    }
}
