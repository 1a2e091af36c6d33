import Pyramid

/// `/api/images/{id}/viewport.jpg|png`: the view itself as one image, letterboxed on a neutral gray, made from
/// the same cached tiles the viewer shows.
enum ViewImageHandler {
    static let maxSide = 4096
    static let background: UInt8 = 48

    static func jpeg(_ context: RequestContext) throws -> HandlerOutcome { try render(context, as: .jpeg) }
    static func png(_ context: RequestContext) throws -> HandlerOutcome { try render(context, as: .png) }

    static func render(_ context: RequestContext, as format: ImageFormat) throws -> HandlerOutcome {
        let image = try context.image(context.capture("id"))
        let width = try context.integer("width", 1 ... maxSide)
        let height = try context.integer("height", 1 ... maxSide)
        let zoom = try ViewportHandler.zoomRequest(context, required: false)
        let (cx, cy) = (try context.number("cx"), try context.number("cy"))
        let app = context.app
        return .deferred {
            do {
                let snapshot = try image.current()
                let model = try ScrollViewModel(geometry: snapshot.geometry, viewWidth: Double(width), viewHeight: Double(height),
                                                maxZoom: app.config.maxZoom)
                let layout = model.layout(zoom: zoom, centerX: cx, centerY: cy)
                let output = try app.tiles.encodedView(layout, of: image, in: snapshot, width: width, height: height,
                                                       background: background, format: format)
                return .image(output, contentType: format.mimeType, headers: [])
            } catch {
                return APIError.response(for: error)
            }
        }
    }
}
