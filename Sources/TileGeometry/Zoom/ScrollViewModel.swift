/// The scroll-view maths of a zoomable image in a `viewWidth × viewHeight` view, as a value type with no I/O:
/// zoom bounds (fit as the minimum, native or `maxZoom` as the maximum), centring insets, the visible
/// rectangle, the pyramid level a zoom needs, double-tap and zoom-to-rectangle. Named after the scroll view that
/// mobile toolkits zoom photos with (UIScrollView's zoomScale, contentInset and zoom(to:)), whose behaviour
/// this reproduces, so readers who know one recognise the other.
public struct ScrollViewModel: Hashable, Sendable {
    package let geometry: PyramidGeometry
    public let viewWidth: Double
    public let viewHeight: Double
    /// `min(viewWidth / W, viewHeight / H)`.
    public let fitZoom: Double
    public let minZoom: Double
    public let maxZoom: Double
    /// Device pixels per view (CSS) pixel: tiles are chosen for `zoom × pixelRatio`, so a phone at ratio 3 gets
    /// sharp tiles, while zooms (and `maxZoom`, native size in view pixels) stay in view pixels.
    package let pixelRatio: Double
    /// The zoom of "100 %", where the toggle double-tap goes: native size (or `maxZoom` below it), or for a viewer
    /// limited by a tiered image's public size, one public pixel per device pixel; within `[minZoom, maxZoom]`.
    public let fullZoom: Double
    /// The deepest level tiles may come from: a viewer limited by a tiered image's public size zooms past it with
    /// that level's tiles drawn larger (and `PublicLevel`'s over them). Nil: any level.
    package let levelCap: Int?
    /// The pixel ratios a client may name: below 1 would pick blurry tiles, above 4 no screen has.
    package static let pixelRatios: ClosedRange<Double> = 1 ... 4
    /// Zooms this close to `minZoom` (relative) are fit: a fit zoom written with six decimals and read back lands
    /// a hair off, and must still mean "at fit".
    static let fitTolerance = 1e-5

    public init(geometry: PyramidGeometry, viewWidth: Double, viewHeight: Double, maxZoom: Double = 1.0,
                pixelRatio: Double = 1, levelCap: Int? = nil, fullZoom: Double? = nil) throws(PyramidError) {
        guard viewWidth.isFinite, viewWidth > 0 else { throw .invalidParameter(name: "width", message: "must be a positive number") }
        guard viewHeight.isFinite, viewHeight > 0 else { throw .invalidParameter(name: "height", message: "must be a positive number") }
        guard maxZoom.isFinite, maxZoom > 0 else { throw .invalidParameter(name: "maxZoom", message: "must be a positive number") }
        guard pixelRatio.isFinite else { throw .invalidParameter(name: "dpr", message: "must be a number") }
        self.pixelRatio = Swift.min(Swift.max(pixelRatio, Self.pixelRatios.lowerBound), Self.pixelRatios.upperBound)
        self.geometry = geometry
        self.viewWidth = viewWidth
        self.viewHeight = viewHeight
        self.fitZoom = Swift.min(viewWidth / Double(geometry.width), viewHeight / Double(geometry.height))
        self.maxZoom = maxZoom
        self.minZoom = Swift.min(fitZoom, maxZoom)
        self.levelCap = levelCap.map { Swift.min(Swift.max($0, 0), geometry.maxLevel) }
        self.fullZoom = Swift.min(Swift.max(fullZoom ?? 1, minZoom), maxZoom)
    }

    var imageWidth: Double { Double(geometry.width) }
    var imageHeight: Double { Double(geometry.height) }
    var imageCenter: (x: Double, y: Double) { (imageWidth / 2, imageHeight / 2) }

    /// The zoom a request resolves to, clamped to `[minZoom, maxZoom]`; a number within `fitTolerance` of
    /// `minZoom` is `minZoom` exactly.
    public func zoom(for request: ZoomRequest) -> Double {
        switch request {
        case .fit: minZoom
        case .max: maxZoom
        case let .value(z): clamp(z)
        }
    }

    func clamp(_ zoom: Double) -> Double {
        if abs(zoom - minZoom) <= minZoom * Self.fitTolerance { return minZoom }
        return Swift.min(Swift.max(zoom, minZoom), maxZoom)
    }

    /// Whether `zoom` (as `clamp` returns it) is the fit view.
    package func isFit(_ zoom: Double) -> Bool { zoom == minZoom }

    /// Half the leftover space on each side when the scaled image is narrower or shorter than the view.
    func insets(zoom: Double) -> EdgeInsets {
        let dx = Swift.max(0, (viewWidth - imageWidth * zoom) / 2)
        let dy = Swift.max(0, (viewHeight - imageHeight * zoom) / 2)
        return EdgeInsets(top: dy, left: dx, bottom: dy, right: dx)
    }

    /// The part of the image on screen at `zoom` around (cx, cy), never scrolled past an edge.
    func visibleRect(zoom: Double, centerX cx: Double, centerY cy: Double) -> ViewRect {
        let w = Swift.min(imageWidth, viewWidth / zoom)
        let h = Swift.min(imageHeight, viewHeight / zoom)
        let x = Swift.min(Swift.max(cx - w / 2, 0), imageWidth - w)
        let y = Swift.min(Swift.max(cy - h / 2, 0), imageHeight - h)
        return ViewRect(x: x, y: y, width: w, height: h)
    }

    /// The smallest level whose scale is at least `zoom × pixelRatio` (device pixels):
    /// `clamp(ceil(maxLevel + log2(zoom × pixelRatio) − 1e−9), 0, maxLevel)`.
    public func level(forZoom zoom: Double) -> Int {
        let raw = (Double(geometry.maxLevel) + log2(zoom * pixelRatio) - 1e-9).rounded(.up)
        return Int(Swift.min(Swift.max(raw, 0), Double(levelCap ?? geometry.maxLevel)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
