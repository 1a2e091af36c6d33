extension TileService {
    /// The pixels of one tile for assembling a region or a view: decoded from its cached encoding when there
    /// is one (PNG first: lossless), else produced through the coalesced tile path, which caches the encoded
    /// tile for the next request and hands back the pixels it rendered. Images with alpha use PNG tiles only,
    /// so every tile of a region has the source's channels.
    public func pixels(of tile: TileCoordinate, in image: PyramidImage, snapshot: PyramidImage.Snapshot) throws -> PixelBuffer {
        let hasAlpha = snapshot.source.info.hasAlpha
        if !hasAlpha, case let .hit(png) = try lookup(image, snapshot: snapshot, tile: tile, format: .png, countingMiss: false) {
            return try ImageDecoder.decode(png.bytes)
        }
        switch try lookup(image, snapshot: snapshot, tile: tile, format: hasAlpha ? .png : .jpeg) {
        case let .hit(encoded):
            return try ImageDecoder.decode(encoded.bytes)
        case let .miss(miss):
            let produced = try produce(miss)
            return try produced.pixels ?? ImageDecoder.decode(produced.tile.bytes)
        }
    }

    /// The pixels of `rect` (full-resolution, upright image pixels) as `outWidth × outHeight`, assembled from
    /// the cached tiles of the smallest pyramid level that still has at least the requested resolution (only
    /// missing tiles are rendered), then cropped and resampled. A small output never decodes the full image.
    public func region(_ rect: PixelRect, outWidth: Int, outHeight: Int, of image: PyramidImage,
                       in snapshot: PyramidImage.Snapshot) throws -> PixelBuffer {
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
        for tile in geometry.tiles(atLevel: level, covering: window) {
            let pixels = try self.pixels(of: tile, in: image, snapshot: snapshot)
            canvas.paste(pixels, at: try geometry.rect(of: tile), window: window)
        }
        let s = Double(shrink)
        return Resampler.resample(canvas, x: Double(rect.x) / s - Double(x0), y: Double(rect.y) / s - Double(y0),
                                  width: Double(rect.width) / s, height: Double(rect.height) / s,
                                  outWidth: outWidth, outHeight: outHeight)
    }

    /// The view `layout` describes as one `width × height` image, letterboxed on `background`: each visible
    /// tile, from the cache where it is, sampled bilinearly at the view's zoom.
    public func view(_ layout: ViewportLayout, of image: PyramidImage, in snapshot: PyramidImage.Snapshot,
                     width: Int, height: Int, background: UInt8) throws -> PixelBuffer {
        var canvas = PixelBuffer(width: width, height: height, channels: 3, fill: background)
        let geometry = snapshot.geometry
        let scale = layout.zoom / layout.levelScale // screen pixels per level pixel
        for visible in layout.tiles {
            let rect = try geometry.rect(of: visible.tile)
            let pixels = try self.pixels(of: visible.tile, in: image, snapshot: snapshot).flattened(background: background)
            let originX = visible.screen.x - Double(rect.x - visible.tile.x * geometry.tileSize) * scale
            let originY = visible.screen.y - Double(rect.y - visible.tile.y * geometry.tileSize) * scale
            canvas.paintBilinear(pixels, originX: originX, originY: originY, scale: scale, clip: visible.screen)
        }
        return canvas
    }
}
