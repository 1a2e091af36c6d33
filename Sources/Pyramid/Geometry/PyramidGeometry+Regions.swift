extension PyramidGeometry {
    /// The tile whose full-resolution cell is exactly `region` and whose pixels, at its level, are
    /// `outWidth × outHeight` (give or take `slack` pixels, for a size the client let the server derive, such
    /// as IIIF's `w,`, which may round differently from the pyramid's halving), or nil. This is how IIIF viewers ask for tiles (OpenSeadragon, Mirador, Leaflet-IIIF): answering them
    /// with the tile itself makes every protocol share one cache entry. Only overlap-free pyramids qualify.
    public func tile(exactly region: PixelRect, outWidth: Int, outHeight: Int, slack: Int = 0) -> TileCoordinate? {
        guard overlap == 0, region.x >= 0, region.y >= 0 else { return nil }
        for level in stride(from: maxLevel, through: 0, by: -1) {
            let shrink = shrink(ofLevel: level)
            let cell = tileSize * shrink
            guard region.x % cell == 0, region.y % cell == 0 else { continue }
            let tile = TileCoordinate(level: level, x: region.x / cell, y: region.y / cell)
            guard region.width == min(cell, width - region.x), region.height == min(cell, height - region.y),
                  let pixels = try? rect(of: tile),
                  abs(pixels.width - outWidth) <= slack, abs(pixels.height - outHeight) <= slack else { continue }
            return tile
        }
        return nil
    }
}
