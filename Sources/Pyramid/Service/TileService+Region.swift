import ImageCodecs
import TileGeometry
extension TileService {
    /// The pixels of one tile for assembling a region or a view: decoded from its cached encoding when there
    /// is one (PNG first: lossless), else produced through the coalesced tile path, which caches the encoded
    /// tile for the next request and hands back the pixels it rendered. Read from any level (`limit: .none`): what
    /// a viewer may see is decided on the output made of them. Tiles are the ones passes store, so every
    /// tile of a region has the source's channels (PNG or WebP for images with alpha).
    func pixels(of tile: TileCoordinate, in image: PyramidImage, snapshot: PyramidImage.Snapshot) throws -> PixelBuffer {
        let hasAlpha = snapshot.source.info.hasAlpha
        if !hasAlpha, case let .hit(png) = try lookup(image, snapshot: snapshot, tile: tile, format: .png, limit: .none, countingMiss: false) {
            return try ImageDecoder.decode(png.bytes)
        }
        // A tiled file's tile is read faster than an encoded tile is made and decoded again: regions read the file.
        if snapshot.readsDirectly(tile.level) {
            if case let .hit(encoded) = try lookup(image, snapshot: snapshot, tile: tile, format: passFormat(snapshot), limit: .none,
                                                   countingMiss: false) {
                return try ImageDecoder.decode(encoded.bytes)
            }
            return try image.render(tile, in: snapshot)
        }
        switch try lookup(image, snapshot: snapshot, tile: tile, format: passFormat(snapshot), limit: .none) {
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
    /// Takes no memory from the render budget: `encodedRegion` is the budgeted way.
    package func region(_ rect: PixelRect, outWidth: Int, outHeight: Int, of image: PyramidImage,
                       in snapshot: PyramidImage.Snapshot) throws -> PixelBuffer {
        let plan = RegionPlan(rect: rect, outWidth: outWidth, outHeight: outHeight, geometry: snapshot.geometry,
                              channels: snapshot.source.info.channels)
        return try region(plan, columns: 0 ..< outWidth, rows: 0 ..< outHeight, of: image, in: snapshot)
    }

    /// Output columns `columns` × rows `rows` of `plan`, from only the level pixels they read: the same
    /// pixels those columns and rows have in the whole output.
    package func region(_ plan: RegionPlan, columns: Range<Int>, rows: Range<Int>, of image: PyramidImage,
                       in snapshot: PyramidImage.Snapshot) throws -> PixelBuffer {
        let columnTaps = plan.columns(columns), rowTaps = plan.rows(rows)
        let window = PixelRect(x: columnTaps.lower, y: rowTaps.lower, width: columnTaps.upper - columnTaps.lower,
                               height: rowTaps.upper - rowTaps.lower)
        let geometry = snapshot.geometry
        // A level read straight from the file (a tiled TIFF's, a JPEG 2000's) is decoded as the window alone: the
        // file's tiles under its edges only as far as the window reaches, where whole tiles of ours would decode up
        // to a tile more on each side. Those are the pixels the tiles have (each is such a read of the file).
        if snapshot.readsDirectly(plan.level) {
            let canvas = try snapshot.source.decode(window, shrink: geometry.shrink(ofLevel: plan.level))
            return Resampler.resample(canvas, originX: window.x, originY: window.y, columns: columnTaps, rows: rowTaps)
        }
        var canvas = PixelBuffer(width: window.width, height: window.height, channels: plan.channels)
        for tile in geometry.tiles(atLevel: plan.level, covering: window) {
            let pixels = try self.pixels(of: tile, in: image, snapshot: snapshot)
            canvas.paste(pixels, at: try geometry.rect(of: tile), window: window)
        }
        return Resampler.resample(canvas, originX: window.x, originY: window.y, columns: columnTaps, rows: rowTaps)
    }

    /// The view `layout` describes as one `width × height` image, letterboxed on `background`: each visible
    /// tile, from the cache where it is, sampled bilinearly at the view's zoom. `columns` and `rows` make one band
    /// of it.
    func view(_ layout: ViewportLayout, of image: PyramidImage, in snapshot: PyramidImage.Snapshot, width: Int, height: Int,
              background: UInt8, columns: Range<Int>? = nil, rows: Range<Int>? = nil) throws -> PixelBuffer {
        let columns = columns ?? 0 ..< width, rows = rows ?? 0 ..< height
        var canvas = PixelBuffer(width: columns.count, height: rows.count, channels: 3, fill: background)
        let geometry = snapshot.geometry
        let scale = layout.zoom / layout.levelScale // screen pixels per level pixel
        let left = Double(columns.lowerBound)
        for visible in layout.tiles
            where visible.screen.y < Double(rows.upperBound) && visible.screen.y + visible.screen.height > Double(rows.lowerBound)
                && visible.screen.x < Double(columns.upperBound) && visible.screen.x + visible.screen.width > left {
            let rect = try geometry.rect(of: visible.tile)
            let pixels = try self.pixels(of: visible.tile, in: image, snapshot: snapshot).flattened(background: background)
            // Painted into the band as if it began at column 0: the origin and the clip move left by the band's start.
            let originX = visible.screen.x - Double(rect.x - visible.tile.x * geometry.tileSize) * scale - left
            let originY = visible.screen.y - Double(rect.y - visible.tile.y * geometry.tileSize) * scale
            let touched = visible.screen.touchedPixels
            let clip = PixelRect(x: touched.x - columns.lowerBound, y: touched.y, width: touched.width, height: touched.height)
            canvas.paintBilinear(pixels, originX: originX, originY: originY, scale: scale, clip: clip, rowOffset: rows.lowerBound)
        }
        return canvas
    }
}
