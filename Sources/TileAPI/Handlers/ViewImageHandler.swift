import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// `/api/images/{id}/viewport.jpg|png|webp`: the view itself as one image, letterboxed on a neutral gray, made from
/// the same cached tiles the viewer shows. `rotate` (90, 180, 270) turns it clockwise as the viewer shows a turned
/// photo; `width × height` is the picture as returned, so a sideways turn lays the view out `height × width`.
struct ViewImageHandler: Sendable {
    static let maxSide = 4096
    static let background: UInt8 = 48

    let maxZoom: Double

    init(_ services: Services) {
        maxZoom = services.options.maxZoom
    }

    func jpeg(_ context: RequestContext) throws -> HandlerOutcome { try render(context, as: .jpeg) }
    func png(_ context: RequestContext) throws -> HandlerOutcome { try render(context, as: .png) }
    func webp(_ context: RequestContext) throws -> HandlerOutcome { try render(context, as: .webp) }

    private func render(_ context: RequestContext, as format: ImageFormat) throws -> HandlerOutcome {
        let image = try context.admitted()
        let width = try context.integer("width", 1 ... Self.maxSide)
        let height = try context.integer("height", 1 ... Self.maxSide)
        let zoom = try ViewportHandler.zoomRequest(context, required: false)
        let (cx, cy) = (try context.number("cx"), try context.number("cy"))
        let turns = try Self.quarterTurns(context)
        let (viewWidth, viewHeight) = turns % 2 == 1 ? (height, width) : (width, height)
        let maxZoom = maxZoom
        return .work(on: .render) {
            do {
                let snapshot = try image.current()
                let model = try ScrollViewModel(geometry: snapshot.geometry, viewWidth: Double(viewWidth), viewHeight: Double(viewHeight),
                                                maxZoom: maxZoom)
                let layout = model.layout(zoom: zoom, centerX: cx, centerY: cy)
                let output = try image.encodedView(layout, in: snapshot, width: viewWidth, height: viewHeight, background: Self.background,
                                                   transform: PixelTransform(quarterTurns: turns), format: format)
                return .image(output, contentType: format.mimeType, headers: [])
            } catch {
                return APIError.response(for: error)
            }
        }
    }

    /// `rotate`: 0 (the default), 90, 180 or 270 degrees clockwise, as quarter turns.
    static func quarterTurns(_ context: RequestContext) throws(APIError) -> Int {
        guard let text = context.path.query["rotate"] else { return 0 }
        guard let degrees = Int(text), [0, 90, 180, 270].contains(degrees) else {
            throw .badRequest("rotate must be 0, 90, 180 or 270 (degrees clockwise)")
        }
        return degrees / 90
    }
}
