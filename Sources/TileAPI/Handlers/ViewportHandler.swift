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

    /// The model for `width`/`height` of the query, the image it is for, and that image's version (tile URLs carry it).
    private func model(_ context: RequestContext) throws -> (AdmittedImage, ScrollViewModel, String) {
        let image = try context.admitted()
        let width = try context.integer("width", 1 ... Self.maxViewSide)
        let height = try context.integer("height", 1 ... Self.maxViewSide)
        // `dpr`: the screen's device pixels per CSS pixel, clamped to 1…4 (a zoomed page or a retina screen sends
        // fractions); tiles are chosen for device pixels, zooms stay in CSS pixels.
        let ratio = try context.number("dpr", 0.01 ... 100) ?? 1
        let snapshot = try image.snapshot(context)
        // A tiered image seen by someone who may not have it all: the closest zoom is its public size (in device
        // pixels), so every tile the answer names is one they may have.
        var zoomLimit = maxZoom
        if let level = Self.topLevel(image.limit, snapshot.geometry) {
            let g = snapshot.geometry, size = g.levelSize(level)
            let scale = Double(max(size.width, size.height)) / Double(max(g.width, g.height)) * (1 - 1e-9)
            zoomLimit = min(maxZoom, scale / min(4, max(1, ratio)))
        }
        return (image, try ScrollViewModel(geometry: snapshot.geometry, viewWidth: Double(width), viewHeight: Double(height),
                                           maxZoom: zoomLimit, pixelRatio: ratio), snapshot.version)
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
        let (image, model, version) = try model(context)
        let layout = Self.allowed(model.layout(zoom: try Self.zoomRequest(context, required: false),
                                               centerX: try context.number("cx"), centerY: try context.number("cy")), image.limit, model.geometry)
        let format = try format(context)
        image.prefetch(layout.prefetch, format: format, with: prefetch)
        return .response(.json(Self.encode(layout, image: image.id, version: version, view: model, format: format)))
    }

    func zoomRect(_ context: RequestContext) throws -> HandlerOutcome {
        let (image, model, version) = try model(context)
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
        image.prefetch(result.layout.prefetch, format: format, with: prefetch)
        var members: [(String, JSONValue)] = [("mode", .string(result.mode.rawValue))]
        if let from = result.fromZoom { members.append(("fromZoom", .double(from))) }
        members += [("zoom", .double(result.zoom)), ("rect", Self.rect(result.rect)),
                    ("viewport", Self.encode(result.layout, image: image.id, version: version, view: model, format: format))]
        return .response(.json(.object(members)))
    }

    static func encode(_ layout: ViewportLayout, image id: String, version: String, view: ScrollViewModel,
                       format: ImageFormat = .jpeg) -> JSONValue {
        func url(_ t: TileCoordinate) -> JSONValue {
            .string(URLPath.tile(id, t, version: version, format: format))
        }
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
            ("level", .int(layout.level)),
            ("levelScale", .double(layout.levelScale)),
            ("tileSize", .int(layout.tileSize)),
            ("center", .object([("x", .double(layout.center.x)), ("y", .double(layout.center.y))])),
            ("visible", Self.rect(layout.visible)),
            ("inset", .object([("top", .double(layout.inset.top)), ("left", .double(layout.inset.left)),
                               ("bottom", .double(layout.inset.bottom)), ("right", .double(layout.inset.right))])),
            ("tiles", .array(layout.tiles.map { t in
                .object([("level", .int(t.tile.level)), ("x", .int(t.tile.x)), ("y", .int(t.tile.y)), ("url", url(t.tile)),
                         ("screen", Self.rect(t.screen))])
            })),
            ("prefetch", .array(layout.prefetch.map { t in
                .object([("level", .int(t.level)), ("x", .int(t.x)), ("y", .int(t.y)), ("url", url(t))])
            })),
        ])
    }

    static func rect(_ r: ViewRect) -> JSONValue {
        .object([("x", .double(r.x)), ("y", .double(r.y)), ("width", .double(r.width)), ("height", .double(r.height))])
    }
}
