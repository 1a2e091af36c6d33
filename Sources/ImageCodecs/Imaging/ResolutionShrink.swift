/// Turns a wavelet resolution's samples into a level of ours, each sample standing where it was taken. A JPEG 2000
/// reduction by 2ᵏ is a low-pass kept at every 2ᵏ-th pixel: sample `j` is centred on pixel `2ᵏ·j`, not on the middle
/// of the 2ᵏ pixels our level's pixel `j` covers, so taken as it is every level is shifted by up to half a pixel from
/// the one above. Our pixel `i`, `factor` samples across, is the average of samples `f·i … f·i + f` by the share of
/// each one's cell inside its own: `½ + δ` for the first, `½ − δ` for the last, 1 between (δ = 2⁻⁽ᵏ⁺¹⁾). At factor 1
/// that is the half-pixel interpolation; at k = 0, the plain box. On a photo's 9/7 file this takes its reduced levels
/// from 1.8–2.8 to 0.9–1.4 levels from a box average of the photo at 1/2 – 1/32.
///
/// The last sample of a pixel's average is only taken within the file tile of the others: across a tile's edge it
/// would cost a decode of the next tile for one column, so there the edge's sample counts twice. That depends on the
/// position alone, so a pixel is the same whichever read it comes from.
struct ResolutionShrink: Sendable {
    /// Samples per pixel of ours (a power of two: the shrink beyond the file's last resolution, else 1).
    let factor: Int
    /// The reduction the samples were read at (2^reduction file pixels each).
    let reduction: Int

    /// One axis: how many samples there are at this reduction, and how many a file tile spans.
    struct Axis {
        let available: Int
        let tile: Int

        /// Whether the sample after `end` samples counts: within the samples and the tile of sample `end - 1`.
        func reaches(_ end: Int) -> Bool { end < available && end % max(1, tile) != 0 }
    }

    /// The samples pixels `origin ..< origin + count` of ours average, first and count.
    func samples(origin: Int, count: Int, along axis: Axis) -> (first: Int, count: Int) {
        let first = origin * factor, end = min((origin + count) * factor, axis.available)
        return (first, (axis.reaches(end) ? end + 1 : end) - first)
    }

    /// For each of `count` pixels from `origin`, its `factor + 1` taps as indices into the samples read from `first`.
    private func taps(origin: Int, count: Int, first: Int, read: Int, along axis: Axis) -> [Int] {
        var taps = [Int]()
        taps.reserveCapacity(count * (factor + 1))
        for i in origin ..< origin + count {
            let end = (i + 1) * factor
            for j in i * factor ..< end { taps.append(min(j - first, read - 1)) }
            taps.append(min((axis.reaches(end) ? end : end - 1) - first, read - 1))
        }
        return taps
    }

    /// Pixels `origin.x ..< origin.x + outWidth` × `origin.y ..< origin.y + outHeight` of ours from the `width × height`
    /// samples read at `samples(…)`'s first of each axis (rows packed) into `out`.
    func apply(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int,
               origin: (x: Int, y: Int), outWidth: Int, outHeight: Int, axes: (x: Axis, y: Axis),
               into out: UnsafeMutableBufferPointer<UInt8>) {
        let delta = 1 / Float(1 << (reduction + 1)), scale = 1 / Float(factor)
        var weights = [Float](repeating: scale, count: factor + 1)
        weights[0] = (0.5 + delta) * scale
        weights[factor] = (0.5 - delta) * scale
        let n = factor + 1
        let columns = taps(origin: origin.x, count: outWidth, first: origin.x * factor, read: width, along: axes.x)
        let rows = taps(origin: origin.y, count: outHeight, first: origin.y * factor, read: height, along: axes.y)
        // Horizontal first, kept as floats for the vertical pass.
        let rowFloats = outWidth * channels
        var across = [Float](repeating: 0, count: rowFloats * height)
        across.withUnsafeMutableBufferPointer { across in
            for y in 0 ..< height {
                let src = pixels.baseAddress! + y * width * channels, dst = across.baseAddress! + y * rowFloats
                for i in 0 ..< outWidth {
                    for c in 0 ..< channels {
                        var sum: Float = 0
                        for t in 0 ..< n { sum += Float(src[columns[i * n + t] * channels + c]) * weights[t] }
                        dst[i * channels + c] = sum
                    }
                }
            }
            for j in 0 ..< outHeight {
                let dst = out.baseAddress! + j * rowFloats
                for k in 0 ..< rowFloats {
                    var sum: Float = 0
                    for t in 0 ..< n { sum += across[rows[j * n + t] * rowFloats + k] * weights[t] }
                    dst[k] = UInt8(max(0, min(255, sum + 0.5)))
                }
            }
        }
    }
}
