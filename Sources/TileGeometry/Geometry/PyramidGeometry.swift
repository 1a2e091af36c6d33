import ImageValues
/// The tile grid of a DeepZoom pyramid over an upright `width × height` image.
///
/// Level `maxLevel = ceil(log2(max(width, height)))` is full resolution; level L is the image shrunk by
/// `2^(maxLevel − L)` with sizes rounded up, down to 1 × 1 at level 0. Tiles are `tileSize` square, cut at
/// the level's right and bottom edges; `overlap` extends each tile past its interior edges (DeepZoom).
public struct PyramidGeometry: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public let tileSize: Int
    package let overlap: Int
    public let maxLevel: Int

    public init(width: Int, height: Int, tileSize: Int = 256, overlap: Int = 0) {
        precondition(width > 0 && height > 0 && tileSize > 0 && overlap >= 0, "invalid pyramid geometry")
        self.width = width
        self.height = height
        self.tileSize = tileSize
        self.overlap = overlap
        self.maxLevel = LevelMath.maxLevel(width: width, height: height)
    }

    /// Shrink factor of `level` against full resolution: `2^(maxLevel − level)`.
    package func shrink(ofLevel level: Int) -> Int { 1 << (maxLevel - level) }

    /// Screen pixels per image pixel at `level`: `2^(level − maxLevel)`.
    func scale(ofLevel level: Int) -> Double { 1.0 / Double(shrink(ofLevel: level)) }

    public func levelSize(_ level: Int) -> (width: Int, height: Int) {
        let shift = maxLevel - level
        return (LevelMath.shrunk(width, by: shift), LevelMath.shrunk(height, by: shift))
    }

    /// Columns and rows of tiles at `level`.
    public func tileCount(_ level: Int) -> (columns: Int, rows: Int) {
        let (w, h) = levelSize(level)
        return ((w + tileSize - 1) / tileSize, (h + tileSize - 1) / tileSize)
    }

    package func validate(level: Int) throws(PyramidError) {
        guard (0 ... maxLevel).contains(level) else { throw .levelOutOfRange(level: level, maxLevel: maxLevel) }
    }

    package func validate(_ tile: TileCoordinate) throws(PyramidError) {
        try validate(level: tile.level)
        let (columns, rows) = tileCount(tile.level)
        guard (0 ..< columns).contains(tile.x), (0 ..< rows).contains(tile.y) else {
            throw .tileOutOfRange(level: tile.level, columns: columns, rows: rows, x: tile.x, y: tile.y)
        }
    }

    /// The pixels of `tile` in its level's coordinates: it starts at `x·T − (x > 0 ? O : 0)` and extends `O`
    /// past each interior edge, clipped to the level.
    public func rect(of tile: TileCoordinate) throws(PyramidError) -> PixelRect {
        try validate(tile)
        let (w, h) = levelSize(tile.level)
        let x0 = tile.x * tileSize - (tile.x > 0 ? overlap : 0)
        let y0 = tile.y * tileSize - (tile.y > 0 ? overlap : 0)
        let x1 = min(w, (tile.x + 1) * tileSize + overlap)
        let y1 = min(h, (tile.y + 1) * tileSize + overlap)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Every tile of `level` whose (overlap-free) cell meets `rect`, given in that level's pixels.
    package func tiles(atLevel level: Int, covering rect: PixelRect) -> [TileCoordinate] {
        let (columns, rows) = tileCount(level)
        guard !rect.isEmpty else { return [] }
        let c0 = max(0, rect.x / tileSize), c1 = min(columns - 1, (rect.maxX - 1) / tileSize)
        let r0 = max(0, rect.y / tileSize), r1 = min(rows - 1, (rect.maxY - 1) / tileSize)
        guard c0 <= c1, r0 <= r1 else { return [] }
        var out: [TileCoordinate] = []
        out.reserveCapacity((c1 - c0 + 1) * (r1 - r0 + 1))
        for y in r0 ... r1 { for x in c0 ... c1 { out.append(TileCoordinate(level: level, x: x, y: y)) } }
        return out
    }

    /// Tiles in every level, for a full build.
    package var totalTiles: Int {
        (0 ... maxLevel).reduce(0) { sum, level in
            let (c, r) = tileCount(level)
            return sum + c * r
        }
    }

    /// The largest level whose whole image is one tile: the pyramid's own thumbnail.
    package var thumbnailLevel: Int {
        var level = maxLevel
        while level > 0, max(levelSize(level).width, levelSize(level).height) > tileSize { level -= 1 }
        return level
    }
}
