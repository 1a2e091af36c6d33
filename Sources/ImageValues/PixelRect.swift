/// A rectangle of whole pixels: origin at the top-left, x to the right, y down.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    package var maxX: Int { x + width }
    package var maxY: Int { y + height }
    package var isEmpty: Bool { width <= 0 || height <= 0 }
    package var area: Int { width * height }

    /// Whether this rectangle lies wholly inside a `width × height` image.
    package func fits(width limitW: Int, height limitH: Int) -> Bool {
        x >= 0 && y >= 0 && width > 0 && height > 0 && maxX <= limitW && maxY <= limitH
    }

    /// The overlap of two rectangles; empty (zero size) when they do not meet.
    package func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    public var description: String { "\(width)×\(height)+\(x)+\(y)" }
}
