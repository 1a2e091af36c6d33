import ImageCodecs
import POSIXSupport
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
        let window = Self.window(columnTaps, rowTaps)
        let geometry = snapshot.geometry
        // A level read straight from the file (a tiled TIFF's, a JPEG 2000's) is decoded as the window alone: the
        // file's tiles under its edges only as far as the window reaches, where whole tiles of ours would decode up
        // to a tile more on each side. Those are the pixels the tiles have (each is such a read of the file).
        if snapshot.readsDirectly(plan.level) {
            let canvas = try snapshot.source.decode(window, shrink: geometry.shrink(ofLevel: plan.level))
            return Resampler.resample(canvas, originX: window.x, originY: window.y, columns: columnTaps, rows: rowTaps)
        }
        var canvas = PixelBuffer(width: window.width, height: window.height, channels: plan.channels)
        let tiles = geometry.tiles(atLevel: plan.level, covering: window)
        gather(tiles, format: passFormat(snapshot), of: image, in: snapshot)
        for tile in tiles {
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
        let band = layout.tiles.filter {
            $0.screen.y < Double(rows.upperBound) && $0.screen.y + $0.screen.height > Double(rows.lowerBound)
                && $0.screen.x < Double(columns.upperBound) && $0.screen.x + $0.screen.width > left
        }
        gather(band.map(\.tile), format: passFormat(snapshot), of: image, in: snapshot)
        for visible in band {
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

    static func window(_ columns: Resampler.Taps, _ rows: Resampler.Taps) -> PixelRect {
        PixelRect(x: columns.lower, y: rows.lower, width: columns.upper - columns.lower, height: rows.upper - rows.lower)
    }

    /// Reads the stored tiles of the whole of `plan` together before it is made in bands (each band would
    /// otherwise wait its own round trips for its own tiles), when they are few enough to be held at once.
    func gather(_ plan: RegionPlan, of image: PyramidImage, in snapshot: PyramidImage.Snapshot) {
        guard store?.isShared == true, !snapshot.readsDirectly(plan.level) else { return }
        let window = Self.window(plan.columns(0 ..< plan.outWidth), plan.rows(0 ..< plan.outHeight))
        let tiles = snapshot.geometry.tiles(atLevel: plan.level, covering: window)
        if tiles.count <= Self.joinLimit { gather(tiles, format: passFormat(snapshot), of: image, in: snapshot) }
    }

    /// Stored tiles read at once from a shared store, at most this many GETs together.
    static let storeReads = 8

    /// With the tile store shared in object storage, each stored tile is a GET of 20–50 ms where the store is far:
    /// the tiles of a region or view that are not in memory (nor read from the file itself) are read from the
    /// store together, `storeReads` at once, into the memory cache, before they are taken one by one. A region of
    /// sixteen stored tiles then waits two round trips, not sixteen. Tiles the store lacks are left to be made.
    func gather(_ tiles: [TileCoordinate], format: ImageFormat, of image: PyramidImage, in snapshot: PyramidImage.Snapshot) {
        guard let store, store.isShared, tiles.count > 1 else { return }
        var misses: [TileMiss] = []
        for tile in tiles where !snapshot.readsDirectly(tile.level) && !snapshot.fileIsStore(tile.level) {
            if !snapshot.source.info.hasAlpha,
               case .hit = try? lookup(image, snapshot: snapshot, tile: tile, format: .png, limit: .none, countingMiss: false) { continue }
            if case let .miss(miss) = try? lookup(image, snapshot: snapshot, tile: tile, format: format, limit: .none, countingMiss: false) {
                misses.append(miss)
            }
        }
        guard misses.count > 1 else { return }
        ConcurrentWaits.run(misses.count, width: Self.storeReads) { [self, misses] i in
            if let stored = stored(misses[i]) { cache.insert(stored, for: misses[i].key) }
        }
    }
}
