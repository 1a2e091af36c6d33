import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// `/api/images/{id}/viewport.jpg|png|webp`: the view itself as one image, letterboxed on a neutral gray, made from
/// the same cached tiles the viewer shows.
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
        let maxZoom = maxZoom
        return .work(on: .render) {
            do {
                let snapshot = try image.current()
                let model = try ScrollViewModel(geometry: snapshot.geometry, viewWidth: Double(width), viewHeight: Double(height),
                                                maxZoom: maxZoom)
                let layout = model.layout(zoom: zoom, centerX: cx, centerY: cy)
                let output = try image.encodedView(layout, in: snapshot, width: width, height: height,
                                                   background: Self.background, format: format)
                return .image(output, contentType: format.mimeType, headers: [])
            } catch {
                return APIError.response(for: error)
            }
        }
    }
}
