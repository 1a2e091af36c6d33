import ImageValues
/// A rectangle in continuous coordinates (image pixels or screen pixels).
public struct ViewRect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }

    /// Every whole pixel this rectangle touches (its edges rounded outwards).
    package var touchedPixels: PixelRect {
        let left = Int(x.rounded(.down)), top = Int(y.rounded(.down))
        return PixelRect(x: left, y: top, width: Int((x + width).rounded(.up)) - left,
                         height: Int((y + height).rounded(.up)) - top)
    }
}

/// Space around the content when it is smaller than the view (UIScrollView's contentInset), in screen pixels.
package struct EdgeInsets: Hashable, Sendable {
    package var top: Double
    package var left: Double
    package var bottom: Double
    package var right: Double

    package init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
}
