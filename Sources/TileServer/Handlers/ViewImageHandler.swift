import Pyramid

/// `/api/images/{id}/viewport.jpg|png`: the view itself as one image, letterboxed on a neutral gray.
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
        let quality = context.app.config.quality
        return .deferred {
            do {
                let snapshot = try image.current()
                let model = try ScrollViewModel(geometry: snapshot.geometry, viewWidth: Double(width), viewHeight: Double(height),
                                                maxZoom: context.app.config.maxZoom)
                let layout = model.layout(zoom: zoom, centerX: cx, centerY: cy)
                let canvas = try compose(layout, image: image, snapshot: snapshot, width: width, height: height)
                let bytes = try ImageEncoder.encode(canvas, as: format, quality: quality)
                return HTTPResponse(contentType: format.mimeType, body: bytes)
            } catch {
                return APIError.response(for: error)
            }
        }
    }

    /// Paints each visible tile's pixels into the canvas, sampling bilinearly at the view's zoom.
    static func compose(_ layout: ViewportLayout, image: PyramidImage, snapshot: PyramidImage.Snapshot,
                        width: Int, height: Int) throws -> PixelBuffer {
        var canvas = PixelBuffer(width: width, height: height, channels: 3, fill: background)
        let geometry = snapshot.geometry
        let scale = layout.zoom / layout.levelScale // screen pixels per level pixel
        for visible in layout.tiles {
            let rect = try geometry.rect(of: visible.tile)
            let pixels = try image.render(visible.tile, in: snapshot).flattened(background: background)
            let x0 = max(0, Int(visible.screen.x.rounded(.down))), x1 = min(width, Int((visible.screen.x + visible.screen.width).rounded(.up)))
            let y0 = max(0, Int(visible.screen.y.rounded(.down))), y1 = min(height, Int((visible.screen.y + visible.screen.height).rounded(.up)))
            guard x0 < x1, y0 < y1 else { continue }
            let originX = visible.screen.x - Double(rect.x - visible.tile.x * geometry.tileSize) * scale
            let originY = visible.screen.y - Double(rect.y - visible.tile.y * geometry.tileSize) * scale
            for sy in y0 ..< y1 {
                let fy = min(max((Double(sy) + 0.5 - originY) / scale - 0.5, 0), Double(pixels.height - 1))
                let iy = Int(fy), wy = fy - Double(iy), iy1 = min(iy + 1, pixels.height - 1)
                for sx in x0 ..< x1 {
                    let fx = min(max((Double(sx) + 0.5 - originX) / scale - 0.5, 0), Double(pixels.width - 1))
                    let ix = Int(fx), wx = fx - Double(ix), ix1 = min(ix + 1, pixels.width - 1)
                    for c in 0 ..< 3 {
                        let p00 = Double(pixels.bytes[(iy * pixels.width + ix) * 3 + c])
                        let p01 = Double(pixels.bytes[(iy * pixels.width + ix1) * 3 + c])
                        let p10 = Double(pixels.bytes[(iy1 * pixels.width + ix) * 3 + c])
                        let p11 = Double(pixels.bytes[(iy1 * pixels.width + ix1) * 3 + c])
                        let top = p00 + (p01 - p00) * wx, bottom = p10 + (p11 - p10) * wx
                        canvas.bytes[(sy * width + sx) * 3 + c] = UInt8((top + (bottom - top) * wy).rounded())
                    }
                }
            }
        }
        return canvas
    }
}
