/// The band loop of sources that read from resolution levels (a TIFF's pages, a JPEG 2000's reductions): `rect` of
/// the image at some shrink, read from a level that is `levelWidth × levelHeight` at that shrink, in bands that end on
/// multiples of `align` rows (the level's tile rows, so each tile is decoded once). A level rounded down may lack the
/// last column or row of ours (ceil): those repeat its edge.
struct LevelReader {
    /// A level is read directly for shrinks up to this many times its own reduction; beyond, each tile would read
    /// `rest²` times its own area, and a decode pass reads the level once instead.
    static let randomAccessReach = 8

    /// Whether a file whose smallest stored level has `side` pixels on its longer side is read from its levels at every
    /// shrink, thumbnails included (a pass over that level costs little): its size is then limited by
    /// `ImageLimits.maxPyramidPixels`, not `maxPixels`.
    static func isPyramid(smallestSide side: Int) -> Bool { side <= 8192 }

    let levelWidth: Int
    let levelHeight: Int
    let channels: Int
    let align: Int

    /// Calls `read(x, y, width, height, into)` for each band's pixels on the level (`into` holds exactly
    /// `width × height × channels` bytes, rows packed), then `body` with the band.
    func stream(_ rect: PixelRect, bandRows: Int,
                read: (_ x: Int, _ y: Int, _ width: Int, _ height: Int, _ into: UnsafeMutableBufferPointer<UInt8>) throws -> Void,
                into body: (PixelBand) throws -> Void) throws {
        let x0 = min(rect.x, levelWidth - 1), x1 = max(x0 + 1, min(rect.maxX, levelWidth))
        let align = max(1, align), step = max(1, bandRows)
        var buffer = [UInt8]()
        var y = rect.y
        while y < rect.maxY {
            let next = min(rect.maxY, (y + step + align - 1) / align * align)
            let y0 = min(y, levelHeight - 1), y1 = max(y0 + 1, min(next, levelHeight))
            let bytes = (x1 - x0) * (y1 - y0) * channels
            if buffer.count < bytes { buffer = [UInt8](repeating: 0, count: bytes) }
            try buffer.withUnsafeMutableBufferPointer { try read(x0, y0, x1 - x0, y1 - y0, UnsafeMutableBufferPointer(rebasing: $0[0 ..< bytes])) }
            let rows = next - y
            let clipped = x0 != rect.x || x1 != rect.maxX || y0 != y || y1 != next
            let band = clipped ? Self.padded(buffer, width: x1 - x0, height: y1 - y0, channels: channels,
                                             from: (rect.x - x0, y - y0), to: (rect.width, rows)) : buffer
            try band.withUnsafeBufferPointer { buf in
                try body(PixelBand(y: y - rect.y, rows: rows, width: rect.width, channels: channels,
                                   bytes: UnsafeBufferPointer(rebasing: buf[0 ..< rows * rect.width * channels])))
            }
            y = next
        }
    }

    /// `size` pixels starting at `origin` of a `width × height` buffer, the buffer's last column and row repeated
    /// where they run past it.
    static func padded(_ pixels: [UInt8], width: Int, height: Int, channels: Int, from origin: (x: Int, y: Int),
                       to size: (width: Int, height: Int)) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size.width * size.height * channels)
        for j in 0 ..< size.height {
            let sy = min(origin.y + j, height - 1)
            for i in 0 ..< size.width {
                let sx = min(origin.x + i, width - 1)
                let from = (sy * width + sx) * channels, to = (j * size.width + i) * channels
                for c in 0 ..< channels { out[to + c] = pixels[from + c] }
            }
        }
        return out
    }
}
