/// Drawing one buffer into another: exact pastes for regions, bilinear painting for view images.
extension PixelBuffer {
    /// Copies the part of `pixels` (which cover `rect` in some level's pixels) that lies inside `window` (this
    /// buffer's place in the same level).
    package mutating func paste(_ pixels: PixelBuffer, at rect: PixelRect, window: PixelRect) {
        precondition(pixels.channels == channels, "paste of \(pixels.channels) channels into \(channels)")
        let part = rect.intersection(window)
        guard !part.isEmpty else { return }
        let c = channels
        for row in 0 ..< part.height {
            let from = ((part.y + row - rect.y) * pixels.width + (part.x - rect.x)) * c
            let to = ((part.y + row - window.y) * width + (part.x - window.x)) * c
            bytes.replaceSubrange(to ..< to + part.width * c, with: pixels.bytes[from ..< from + part.width * c])
        }
    }

    /// Paints 3-channel `pixels`, scaled by `scale` with its top-left corner at (`originX`, `originY`), into
    /// the pixels of this 3-channel buffer that `clip` (in this buffer's coordinates: every pixel a continuous
    /// rectangle touches) covers, sampling bilinearly at pixel centres.
    /// `rowOffset`: this buffer holds the rows of a larger picture from there on (one band of a view image);
    /// `originY` and `clip` stay in the larger picture's coordinates.
    package mutating func paintBilinear(_ pixels: PixelBuffer, originX: Double, originY: Double, scale: Double, clip: PixelRect,
                                       rowOffset: Int = 0) {
        precondition(channels == 3 && pixels.channels == 3, "bilinear painting works on RGB")
        let x0 = max(0, clip.x), x1 = min(width, clip.maxX)
        let y0 = max(rowOffset, clip.y), y1 = min(rowOffset + height, clip.maxY)
        guard x0 < x1, y0 < y1 else { return }
        let w = width
        pixels.bytes.withUnsafeBufferPointer { src in
            bytes.withUnsafeMutableBufferPointer { dst in
                for sy in y0 ..< y1 {
                    let fy = min(max((Double(sy) + 0.5 - originY) / scale - 0.5, 0), Double(pixels.height - 1))
                    let iy = Int(fy), wy = fy - Double(iy), iy1 = min(iy + 1, pixels.height - 1)
                    for sx in x0 ..< x1 {
                        let fx = min(max((Double(sx) + 0.5 - originX) / scale - 0.5, 0), Double(pixels.width - 1))
                        let ix = Int(fx), wx = fx - Double(ix), ix1 = min(ix + 1, pixels.width - 1)
                        for c in 0 ..< 3 {
                            let p00 = Double(src[(iy * pixels.width + ix) * 3 + c])
                            let p01 = Double(src[(iy * pixels.width + ix1) * 3 + c])
                            let p10 = Double(src[(iy1 * pixels.width + ix) * 3 + c])
                            let p11 = Double(src[(iy1 * pixels.width + ix1) * 3 + c])
                            let top = p00 + (p01 - p00) * wx, bottom = p10 + (p11 - p10) * wx
                            dst[((sy - rowOffset) * w + sx) * 3 + c] = UInt8((top + (bottom - top) * wy).rounded())
                        }
                    }
                }
            }
        }
    }
}
