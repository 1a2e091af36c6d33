import ImageValues

/// The most of an image one viewer may have: all of it, or up to `longSide` pixels on the image's long side (a
/// tiered folder's public size). Every picture made of the image (a tile, a level, a region at a size, a view)
/// is checked against it on both axes: its scale along x and its scale along y are each at most `maxScale`, with
/// half an output pixel of slack for rounding. A tall output of a wide region, or a thin strip at full width, is
/// judged on the axis that magnifies most, not on the width alone; a strip thinner than one output pixel at the
/// public scale (one row drawn as one row) is refused too, or rows read one at a time would add up to the whole.
public struct OutputLimit: Sendable, Equatable, CustomStringConvertible {
    /// The long side allowed; nil: no limit.
    public let longSide: Int?

    public init(longSide: Int?) {
        self.longSide = longSide
    }

    /// Everything, at any size.
    public static let none = OutputLimit(longSide: nil)

    public var description: String { longSide.map { "at most \($0) px on the long side" } ?? "no limit" }

    /// Output pixels per image pixel allowed of an image `width`×`height`; nil when any.
    public func maxScale(width: Int, height: Int) -> Double? {
        guard let longSide else { return nil }
        return min(1, Double(longSide) / Double(max(1, width, height)))
    }

    /// Whether `region` of an image `imageWidth`×`imageHeight`, drawn `outWidth`×`outHeight`, is within.
    public func permits(region: PixelRect, outWidth: Int, outHeight: Int, imageWidth: Int, imageHeight: Int) -> Bool {
        guard let scale = maxScale(width: imageWidth, height: imageHeight) else { return true }
        guard region.width > 0, region.height > 0 else { return false }
        return Double(outWidth) <= Double(region.width) * scale + Self.slack && Double(outHeight) <= Double(region.height) * scale + Self.slack
    }

    /// Whether every tile of level `level` of `geometry` is within: the level drawn whole.
    public func permits(level: Int, of geometry: PyramidGeometry) -> Bool {
        guard longSide != nil, level >= 0, level <= geometry.maxLevel else { return true }
        let size = geometry.levelSize(level)
        return permits(region: PixelRect(x: 0, y: 0, width: geometry.width, height: geometry.height), outWidth: size.width,
                       outHeight: size.height, imageWidth: geometry.width, imageHeight: geometry.height)
    }

    /// Whether a view at `zoom` (screen pixels per image pixel) is within.
    public func permits(zoom: Double, imageWidth: Int, imageHeight: Int) -> Bool {
        guard let scale = maxScale(width: imageWidth, height: imageHeight) else { return true }
        return zoom * Double(max(imageWidth, imageHeight)) <= scale * Double(max(imageWidth, imageHeight)) + Self.slack
    }

    /// Output pixels beyond the exact scale that rounding may add: half a pixel, and a hair for the arithmetic.
    static let slack = 0.5 + 1e-6

    /// The deepest level of `geometry` within the limit (the full-size level when there is none).
    public func topLevel(of geometry: PyramidGeometry) -> Int {
        var level = geometry.maxLevel
        while level > 0, !permits(level: level, of: geometry) { level -= 1 }
        return level
    }

    /// The largest picture of the whole image within the limit: its size at `maxScale`, at least 1 × 1.
    public func largestSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard let scale = maxScale(width: width, height: height) else { return (width, height) }
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
