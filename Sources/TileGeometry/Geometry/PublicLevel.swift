import ImageValues

/// The picture a tiered image's public size allows, as a level of its own: the whole image at exactly
/// `OutputLimit.largestSize` (the long side equal to `max_public_size`), cut into `tileSize` tiles. It lies between
/// the deepest power-of-two level within the limit and the next, so a visitor limited by it is shown every pixel
/// the limit allows, not the level below's. Each tile is a region of the full image drawn at the public scale (an
/// IIIF region and size), which the limit permits on both axes.
public struct PublicLevel: Hashable, Sendable {
    /// One tile: its place in the public grid, the region of the full image it shows (whole image pixels, every
    /// pixel the tile's public pixels come from), and its size in public pixels.
    public struct Tile: Hashable, Sendable {
        public let x: Int
        public let y: Int
        public let region: PixelRect
        public let width: Int
        public let height: Int
    }

    public let imageWidth: Int
    public let imageHeight: Int
    /// The public picture's size: the whole image at the limit's scale.
    public let width: Int
    public let height: Int
    public let tileSize: Int

    /// The public level of `geometry` under `limit`; nil without a limit, or where the limit allows the whole
    /// image or exactly a level of the pyramid (then that level's tiles are the public size's).
    public init?(_ geometry: PyramidGeometry, limit: OutputLimit) {
        guard limit.maxScale(width: geometry.width, height: geometry.height).map({ $0 < 1 }) ?? false else { return nil }
        let size = limit.largestSize(width: geometry.width, height: geometry.height)
        let top = geometry.levelSize(limit.topLevel(of: geometry))
        guard max(size.width, size.height) > max(top.width, top.height) else { return nil }
        imageWidth = geometry.width
        imageHeight = geometry.height
        (width, height) = size
        tileSize = geometry.tileSize
    }

    /// Public pixels per image pixel, along x and along y (the public size is rounded to whole pixels).
    public var scaleX: Double { Double(width) / Double(imageWidth) }
    public var scaleY: Double { Double(height) / Double(imageHeight) }
    /// Public pixels per image pixel on the long side: the zoom at which one public pixel is one device pixel.
    public var scale: Double { imageWidth >= imageHeight ? scaleX : scaleY }

    /// The tile at column `x`, row `y` of the public grid, or nil outside it.
    public func tile(x: Int, y: Int) -> Tile? {
        let columns = (width + tileSize - 1) / tileSize, rows = (height + tileSize - 1) / tileSize
        guard (0 ..< columns).contains(x), (0 ..< rows).contains(y) else { return nil }
        let (px0, py0) = (x * tileSize, y * tileSize)
        let (px1, py1) = (min(width, px0 + tileSize), min(height, py0 + tileSize))
        // Floor and ceiling: the region holds every image pixel the tile's pixels are drawn from, so the output is
        // at most the region at the limit's scale on each axis (`OutputLimit.permits`).
        let x0 = Int((Double(px0) / scaleX).rounded(.down)), y0 = Int((Double(py0) / scaleY).rounded(.down))
        let x1 = min(imageWidth, Int((Double(px1) / scaleX).rounded(.up))), y1 = min(imageHeight, Int((Double(py1) / scaleY).rounded(.up)))
        return Tile(x: x, y: y, region: PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0)),
                    width: px1 - px0, height: py1 - py0)
    }

    /// The tiles that show any of `visible` (image pixels), row by row.
    public func tiles(covering visible: ViewRect) -> [Tile] {
        let columns = (width + tileSize - 1) / tileSize, rows = (height + tileSize - 1) / tileSize
        let t = Double(tileSize)
        let c0 = max(0, Int((visible.x * scaleX / t).rounded(.down))), c1 = min(columns - 1, Int(((visible.x + visible.width) * scaleX / t).rounded(.up)) - 1)
        let r0 = max(0, Int((visible.y * scaleY / t).rounded(.down))), r1 = min(rows - 1, Int(((visible.y + visible.height) * scaleY / t).rounded(.up)) - 1)
        guard c0 <= c1, r0 <= r1 else { return [] }
        return (r0 ... r1).flatMap { y in (c0 ... c1).compactMap { x in tile(x: x, y: y) } }
    }
}
