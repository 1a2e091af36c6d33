import ImageCodecs
import TileGeometry
/// How `rect` (full-resolution, upright image pixels) becomes `outWidth × outHeight`: read from the smallest
/// pyramid level that still has at least the requested resolution, then resampled. Any rectangle of the
/// output can be made alone (`TileService.region(_:columns:rows:…)`), bit for bit as in the whole, so an
/// output larger than memory is made in bands.
package struct RegionPlan: Sendable, Equatable {
    package let rect: PixelRect
    let outWidth: Int
    let outHeight: Int
    package let level: Int
    package let channels: Int
    let shrink: Int
    let levelWidth: Int
    let levelHeight: Int
    let tileSize: Int

    package init(rect: PixelRect, outWidth: Int, outHeight: Int, geometry: PyramidGeometry, channels: Int) {
        var shrink = 1
        while shrink * 2 <= 1 << geometry.maxLevel,
              Double(rect.width) / Double(shrink * 2) >= Double(outWidth),
              Double(rect.height) / Double(shrink * 2) >= Double(outHeight) {
            shrink *= 2
        }
        self.rect = rect
        self.outWidth = outWidth
        self.outHeight = outHeight
        self.shrink = shrink
        self.channels = channels
        level = geometry.maxLevel - shrink.trailingZeroBitCount
        (levelWidth, levelHeight) = geometry.levelSize(level)
        tileSize = geometry.tileSize
    }

    /// Column taps for output columns `range`, in level pixels.
    func columns(_ range: Range<Int>) -> Resampler.Taps {
        let s = Double(shrink)
        return Resampler.Taps(start: Double(rect.x) / s, span: Double(rect.width) / s, count: outWidth, limit: levelWidth, range: range)
    }

    /// Row taps for output rows `range`, in level pixels.
    func rows(_ range: Range<Int>) -> Resampler.Taps {
        let s = Double(shrink)
        return Resampler.Taps(start: Double(rect.y) / s, span: Double(rect.height) / s, count: outHeight, limit: levelHeight, range: range)
    }

    /// Pixel memory that making `columns × rows` of the output takes at its peak: the level pixels under
    /// it, the float rows of the horizontal pass, the output and one transformed copy, and the tiles being
    /// decoded.
    package func bytes(columns: Int, rows: Int) -> Int {
        let scaleX = Double(rect.width) / Double(shrink) / Double(outWidth)
        let scaleY = Double(rect.height) / Double(shrink) / Double(outHeight)
        let levelColumns = min(levelWidth, Int((Double(columns) * scaleX).rounded(.up)) + 2)
        let levelRows = min(levelHeight, Int((Double(rows) * scaleY).rounded(.up)) + 2)
        let canvas = levelColumns * levelRows * channels
        let floats = levelRows * columns * channels * 4
        let output = columns * rows * channels * 2
        let tiles = 2 * tileSize * tileSize * 4
        return canvas + floats + output + tiles
    }

    /// The whole output at once.
    var wholeBytes: Int { bytes(columns: outWidth, rows: outHeight) }
}
