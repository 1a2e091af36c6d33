/// What a double tap or a zoom-to-rectangle does: the new zoom, the seed's zoom rectangle and the view.
public struct ZoomResult: Hashable, Sendable {
    public enum Mode: String, Sendable {
        case step
        case toggle
        case rect
    }

    package var mode: Mode
    /// The zoom before the gesture; nil for zoom-to-rectangle.
    package var fromZoom: Double?
    public var zoom: Double
    /// `viewWidth / zoom × viewHeight / zoom` centred on the target point, unclamped (as the seed computes it).
    public var rect: ViewRect
    public var layout: ViewportLayout
}

extension ScrollViewModel {
    /// scrollViewDoubleTapped. Step: `newZoom = clamp(zoom × factor)` centred on the tapped point (px, py); a step
    /// in from the largest zoom, where it could go no further, goes back to `minZoom` centred on the image (a photo
    /// app's double tap never does nothing). Toggle (the photo-app double tap): zoomed in beyond 1e−6 goes back to `minZoom` centred on the image,
    /// otherwise to `fullZoom` (100 %; `maxZoom` where fit is already that close) centred on the tapped point.
    public func doubleTap(zoom: Double, x px: Double, y py: Double, mode: ZoomResult.Mode = .step, factor: Double = 1.5) -> ZoomResult {
        let from = clamp(zoom)
        var target = (x: px, y: py)
        let newZoom: Double
        switch mode {
        case .toggle:
            if from > minZoom + 1e-6 {
                newZoom = minZoom
                target = imageCenter
            } else {
                newZoom = fullZoom > minZoom + 1e-6 ? fullZoom : maxZoom
            }
        case .step, .rect:
            if factor > 1 && from >= maxZoom - 1e-6 && maxZoom > minZoom + 1e-6 {
                newZoom = minZoom
                target = imageCenter
            } else {
                newZoom = clamp(from * factor)
            }
        }
        return result(mode: mode == .rect ? .step : mode, from: from, zoom: newZoom, x: target.x, y: target.y)
    }

    /// zoomToRect: `zoom = clamp(min(viewWidth / w, viewHeight / h))`, centred on the rectangle's centre.
    public func zoom(to rect: ViewRect) -> ZoomResult {
        let z = clamp(Swift.min(viewWidth / rect.width, viewHeight / rect.height))
        return result(mode: .rect, from: nil, zoom: z, x: rect.midX, y: rect.midY)
    }

    private func result(mode: ZoomResult.Mode, from: Double?, zoom: Double, x: Double, y: Double) -> ZoomResult {
        let w = viewWidth / zoom, h = viewHeight / zoom
        return ZoomResult(mode: mode, fromZoom: from, zoom: zoom,
                          rect: ViewRect(x: x - w / 2, y: y - h / 2, width: w, height: h),
                          layout: layout(zoom: zoom, centerX: x, centerY: y))
    }
}
