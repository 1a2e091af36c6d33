import ImageCodecs
import TileGeometry
/// Writes every tile of every level of an image in one streaming pass, the way `vips dzsave` does: rows are
/// decoded once, top to bottom; each level keeps only the rows its next tile row needs and passes 2 × 2
/// averages down; cut tiles are encoded and written by a few threads while decoding goes on.
package struct PyramidBuilder: Sendable {
    package let source: any ImageSource
    package let options: BuildOptions
    package let geometry: PyramidGeometry

    package init(source: any ImageSource, options: BuildOptions) {
        self.source = source
        self.options = options
        geometry = PyramidGeometry(width: source.info.width, height: source.info.height,
                                   tileSize: options.tileSize, overlap: options.overlap)
    }

    /// The DeepZoom descriptor, formatted as `vips dzsave` formats it.
    var dziDocument: String {
        DeepZoomDescriptor.xml(width: geometry.width, height: geometry.height, tileSize: options.tileSize,
                               overlap: options.overlap, format: options.format)
    }

    /// Builds into a staging directory and moves it into place under `output` as `name`. `progress` is
    /// called now and then with tiles written and the total.
    package func build(into output: String, name: String, progress: (@Sendable (Int, Int) -> Void)? = nil) throws {
        let out = try OutputDirectory(root: output, name: name, layout: options.layout)
        do {
            try out.makeDirectories(geometry)
            try stream(out, progress: progress)
            try out.commit(dzi: options.layout == .dzi ? dziDocument : nil)
        } catch {
            out.discard()
            throw error
        }
    }

    private func stream(_ out: OutputDirectory, progress: (@Sendable (Int, Int) -> Void)?) throws {
        let options = self.options
        let ext = options.format.fileExtension
        let profile = source.keptProfile
        let queue = EncodeQueue<BuildJob>(threads: options.threads, capacity: 2 * max(8, geometry.tileCount(geometry.maxLevel).columns)) { job in
            let bytes = try ImageEncoder.encode(job.pixels, as: options.format, quality: options.quality,
                                                pngLevel: options.pngLevel, profile: profile)
            try OutputDirectory.write(bytes, to: job.path)
        }
        let total = geometry.totalTiles
        var bands = (0 ... geometry.maxLevel).map { level -> LevelBand in
            let (w, h) = geometry.levelSize(level)
            return LevelBand(level: level, width: w, height: h, channels: source.info.channels,
                             tileSize: options.tileSize, overlap: options.overlap)
        }
        func cutReadyTiles(_ level: Int) throws {
            while let tileRow = bands[level].readyTileRow {
                for x in 0 ..< geometry.tileCount(level).columns {
                    let tile = TileCoordinate(level: level, x: x, y: tileRow)
                    let pixels = bands[level].crop(try geometry.rect(of: tile))
                    try queue.push(BuildJob(path: out.tilePath(level: level, x: x, y: tileRow, ext: ext), pixels: pixels))
                }
                bands[level].finishTileRow()
            }
        }
        do {
            let full = PixelRect(x: 0, y: 0, width: geometry.width, height: geometry.height)
            try source.decode(full, shrink: 1, bandRows: 64) { band in
                let rowBytes = band.width * band.channels
                for r in 0 ..< band.rows {
                    var level = geometry.maxLevel
                    var down = bands[level].append(UnsafeBufferPointer(rebasing: band.bytes[r * rowBytes ..< (r + 1) * rowBytes]))
                    try cutReadyTiles(level)
                    while let row = down {
                        level -= 1
                        down = row.withUnsafeBufferPointer { bands[level].append($0) }
                        try cutReadyTiles(level)
                    }
                }
                progress?(queue.written.load(ordering: .relaxed), total)
            }
        } catch {
            queue.abandon()
            throw error
        }
        try queue.finish()
        progress?(queue.written.load(ordering: .relaxed), total)
    }
}

/// A cut tile of a build and the file it goes to.
struct BuildJob: Sendable {
    let path: String
    let pixels: PixelBuffer
}
