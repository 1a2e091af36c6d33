/// EXIF orientation (tag 0x0112): how the stored pixels must be turned to stand upright.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    package init(exif: Int) {
        self = Orientation(rawValue: exif) ?? .up
    }

    /// 5 to 8 exchange width and height.
    var swapsAxes: Bool { rawValue >= 5 }

    /// The stored rectangle holding the upright rectangle `rect`, in an image whose stored size is `storedW × storedH`.
    func storedRect(for rect: PixelRect, storedW: Int, storedH: Int) -> PixelRect {
        let (x, y, w, h) = (rect.x, rect.y, rect.width, rect.height)
        switch self {
        case .up: return rect
        case .upMirrored: return PixelRect(x: storedW - x - w, y: y, width: w, height: h)
        case .down: return PixelRect(x: storedW - x - w, y: storedH - y - h, width: w, height: h)
        case .downMirrored: return PixelRect(x: x, y: storedH - y - h, width: w, height: h)
        case .leftMirrored: return PixelRect(x: y, y: x, width: h, height: w)
        case .right: return PixelRect(x: y, y: storedH - x - w, width: h, height: w)
        case .rightMirrored: return PixelRect(x: storedW - y - h, y: storedH - x - w, width: h, height: w)
        case .left: return PixelRect(x: storedW - y - h, y: x, width: h, height: w)
        }
    }

    /// For upright pixel (i, j) of a `w × h` upright rectangle, the pixel of the stored rectangle it comes from.
    @inline(__always)
    func storedPixel(i: Int, j: Int, w: Int, h: Int) -> (Int, Int) {
        switch self {
        case .up: (i, j)
        case .upMirrored: (w - 1 - i, j)
        case .down: (w - 1 - i, h - 1 - j)
        case .downMirrored: (i, h - 1 - j)
        case .leftMirrored: (j, i)
        case .right: (j, w - 1 - i)
        case .rightMirrored: (h - 1 - j, w - 1 - i)
        case .left: (h - 1 - j, i)
        }
    }
}
