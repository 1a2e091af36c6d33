import ImageValues
extension PyramidGeometry {
    /// The tile whose full-resolution cell is exactly `region` and whose pixels, at its level, are
    /// `outWidth × outHeight` (give or take `slack` pixels, for a size the client let the server derive, such
    /// as IIIF's `w,`, which may round differently from the pyramid's halving), or nil. This is how IIIF viewers ask for tiles (OpenSeadragon, Mirador, Leaflet-IIIF): answering them
    /// with the tile itself makes every protocol share one cache entry. Only overlap-free pyramids qualify.
    package func tile(exactly region: PixelRect, outWidth: Int, outHeight: Int, slack: Int = 0) -> TileCoordinate? {
        guard let block = tileBlock(exactly: region, outWidth: outWidth, outHeight: outHeight, slack: slack),
              block.columns.count == 1, block.rows.count == 1 else { return nil }
        return TileCoordinate(level: block.level, x: block.columns.lowerBound, y: block.rows.lowerBound)
    }
}

extension PyramidGeometry {
    /// The block of whole tiles of one level whose full-resolution cells together are exactly `region`, at that
    /// level's own pixels (give or take `slack`, as for `tile(exactly:…)`), or nil: how the Universal Viewer's
    /// 512 px tiles fall on a 256 px pyramid. Such a region can be answered by joining its tiles' encodings.
    package func tileBlock(exactly region: PixelRect, outWidth: Int, outHeight: Int, slack: Int = 0) -> TileBlock? {
        guard overlap == 0, region.x >= 0, region.y >= 0, region.width > 0, region.height > 0,
              region.x + region.width <= width, region.y + region.height <= height else { return nil }
        for level in stride(from: maxLevel, through: 0, by: -1) {
            let shrink = shrink(ofLevel: level)
            let cell = tileSize * shrink
            guard region.x % cell == 0, region.y % cell == 0 else { continue }
            let right = region.x + region.width, bottom = region.y + region.height
            guard right % cell == 0 || right == width, bottom % cell == 0 || bottom == height else { continue }
            let (levelWidth, levelHeight) = levelSize(level)
            let columns = region.x / cell ..< (right + cell - 1) / cell
            let rows = region.y / cell ..< (bottom + cell - 1) / cell
            let pixelWidth = min(columns.upperBound * tileSize, levelWidth) - columns.lowerBound * tileSize
            let pixelHeight = min(rows.upperBound * tileSize, levelHeight) - rows.lowerBound * tileSize
            guard abs(pixelWidth - outWidth) <= slack, abs(pixelHeight - outHeight) <= slack else { continue }
            return TileBlock(level: level, columns: columns, rows: rows, width: pixelWidth, height: pixelHeight)
        }
        return nil
    }
}

/// Whole tiles `columns × rows` of `level`, which together are `width × height` level pixels.
package struct TileBlock: Sendable, Equatable {
    package let level: Int
    package let columns: Range<Int>
    package let rows: Range<Int>
    package let width: Int
    package let height: Int

    /// The tiles in row order.
    package var tiles: [TileCoordinate] {
        rows.flatMap { y in columns.map { x in TileCoordinate(level: level, x: x, y: y) } }
    }
}
