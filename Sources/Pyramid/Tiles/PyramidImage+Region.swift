extension PyramidImage {
    /// The pixels of `rect` (full-resolution, upright image pixels) as `outWidth × outHeight`, made from the
    /// smallest pyramid level that still has at least the requested resolution (its tiles, through the same
    /// passes as tile requests), then resampled. A small output never decodes the full-resolution image.
    public func region(_ rect: PixelRect, outWidth: Int, outHeight: Int, in snapshot: Snapshot) throws -> PixelBuffer {
        let geometry = snapshot.geometry
        var shrink = 1
        while shrink * 2 <= 1 << geometry.maxLevel,
              Double(rect.width) / Double(shrink * 2) >= Double(outWidth),
              Double(rect.height) / Double(shrink * 2) >= Double(outHeight) {
            shrink *= 2
        }
        let level = geometry.maxLevel - shrink.trailingZeroBitCount
        let (levelWidth, levelHeight) = geometry.levelSize(level)
        let x0 = rect.x / shrink, y0 = rect.y / shrink
        let x1 = min(levelWidth, (rect.maxX + shrink - 1) / shrink), y1 = min(levelHeight, (rect.maxY + shrink - 1) / shrink)
        let window = PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
        var canvas = PixelBuffer(width: window.width, height: window.height, channels: snapshot.source.info.channels)
        let size = geometry.tileSize
        for tile in geometry.tiles(atLevel: level, covering: window) {
            let pixels = try render(tile, in: snapshot)
            let tileRect = try geometry.rect(of: tile)
            let cell = PixelRect(x: tile.x * size, y: tile.y * size, width: min(size, tileRect.maxX - tile.x * size),
                                 height: min(size, tileRect.maxY - tile.y * size))
            let part = cell.intersection(window)
            let c = canvas.channels
            for row in 0 ..< part.height {
                let from = ((part.y + row - tileRect.y) * pixels.width + (part.x - tileRect.x)) * c
                let to = ((part.y + row - window.y) * canvas.width + (part.x - window.x)) * c
                canvas.bytes.replaceSubrange(to ..< to + part.width * c, with: pixels.bytes[from ..< from + part.width * c])
            }
        }
        let s = Double(shrink)
        return Resampler.resample(canvas, x: Double(rect.x) / s - Double(x0), y: Double(rect.y) / s - Double(y0),
                                  width: Double(rect.width) / s, height: Double(rect.height) / s,
                                  outWidth: outWidth, outHeight: outHeight)
    }
}
