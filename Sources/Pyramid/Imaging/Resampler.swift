/// Resizes pixels to any size, separably: area averaging where the image shrinks (each output pixel is the
/// coverage-weighted mean of the source pixels under it), linear interpolation where it grows.
///
/// Weights are computed in the coordinates of the whole source window, for whichever output pixels are
/// wanted, so an image made in bands (`Taps` for a range of rows) is bit for bit the image made whole.
enum Resampler {
    /// For each output pixel of one axis: the first source index it reads and the normalised weights from there.
    struct Taps: Sendable {
        var taps: [(first: Int, weights: [Float])]
        /// The source span the taps read: `lower ..< upper`.
        var lower: Int { taps.map(\.first).min() ?? 0 }
        var upper: Int { taps.map { $0.first + $0.weights.count }.max() ?? 0 }

        /// Output pixels `range` of `count` covering `span` source pixels from `start` (fractional), reading
        /// source indices below `limit`.
        public init(start: Double, span: Double, count: Int, limit: Int, range: Range<Int>) {
            taps = Resampler.weights(start: start, span: span, count: count, limit: limit, range: range)
        }
    }

    /// The source window (`x`, `y`, `width`, `height`, fractional, in `source` pixels) as `outWidth × outHeight`.
    static func resample(_ source: PixelBuffer, x: Double, y: Double, width: Double, height: Double,
                                outWidth: Int, outHeight: Int) -> PixelBuffer {
        let columns = Taps(start: x, span: width, count: outWidth, limit: source.width, range: 0 ..< outWidth)
        let rows = Taps(start: y, span: height, count: outHeight, limit: source.height, range: 0 ..< outHeight)
        return resample(source, originX: 0, originY: 0, columns: columns, rows: rows)
    }

    /// One output pixel per column and row tap, reading `source`, whose first pixel is source index
    /// (`originX`, `originY`) of the axes the taps index.
    static func resample(_ source: PixelBuffer, originX: Int, originY: Int, columns: Taps, rows: Taps) -> PixelBuffer {
        let c = source.channels
        let outWidth = columns.taps.count, outHeight = rows.taps.count
        var result = PixelBuffer(width: outWidth, height: outHeight, channels: c)
        if columns.taps.allSatisfy({ $0.weights.count == 1 }) && rows.taps.allSatisfy({ $0.weights.count == 1 }) {
            // One source pixel per output pixel (same scale, or nearest at a boundary): copy, a whole row at once
            // where the columns are consecutive (the usual case: a region at a level's own scale).
            let firsts = columns.taps.map(\.first)
            let consecutive = firsts.last.map { $0 - firsts[0] == outWidth - 1 } ?? true
            source.bytes.withUnsafeBufferPointer { src in
                result.bytes.withUnsafeMutableBufferPointer { dst in
                    for (oy, row) in rows.taps.enumerated() {
                        let line = (row.first - originY) * source.width
                        if consecutive, let first = firsts.first {
                            (dst.baseAddress! + oy * outWidth * c).update(from: src.baseAddress! + (line + first - originX) * c,
                                                                         count: outWidth * c)
                            continue
                        }
                        for (ox, first) in firsts.enumerated() {
                            let from = (line + first - originX) * c, to = (oy * outWidth + ox) * c
                            for ch in 0 ..< c { dst[to + ch] = src[from + ch] }
                        }
                    }
                }
            }
            return result
        }
        // Horizontal pass into floats, only for the source rows the vertical pass will read. The taps are laid out
        // flat first, so the loops touch no reference-counted storage.
        let firstRow = rows.lower, lastRow = rows.upper
        let cols = Flat(columns), rowTaps = Flat(rows)
        let stride = outWidth * c
        var middle = [Float](repeating: 0, count: (lastRow - firstRow) * stride)
        source.bytes.withUnsafeBufferPointer { src in
            middle.withUnsafeMutableBufferPointer { mid in
                cols.weights.withUnsafeBufferPointer { weights in
                    for sy in firstRow ..< lastRow {
                        let line = (sy - originY) * source.width * c
                        let out = (sy - firstRow) * stride
                        for ox in 0 ..< outWidth {
                            let base = line + (cols.first[ox] - originX) * c
                            let w0 = cols.offset[ox], n = cols.offset[ox + 1] - w0
                            if c == 3 { // RGB, the common case: one walk over the taps for all three channels
                                var r: Float = 0, g: Float = 0, b: Float = 0
                                for k in 0 ..< n {
                                    let weight = weights[w0 + k], p = base + k * 3
                                    r += weight * Float(src[p])
                                    g += weight * Float(src[p + 1])
                                    b += weight * Float(src[p + 2])
                                }
                                mid[out + ox * 3] = r
                                mid[out + ox * 3 + 1] = g
                                mid[out + ox * 3 + 2] = b
                                continue
                            }
                            for ch in 0 ..< c {
                                var sum: Float = 0
                                for k in 0 ..< n { sum += weights[w0 + k] * Float(src[base + k * c + ch]) }
                                mid[out + ox * c + ch] = sum
                            }
                        }
                    }
                }
            }
        }
        middle.withUnsafeBufferPointer { mid in
            rowTaps.weights.withUnsafeBufferPointer { weights in
                result.bytes.withUnsafeMutableBufferPointer { dst in
                    // Row by row (the sums add in the same order as pixel by pixel, so the result is the same), which
                    // the compiler vectorises; rounding half up after clamping is `rounded()` for these values.
                    var sums = [Float](repeating: 0, count: stride)
                    sums.withUnsafeMutableBufferPointer { acc in
                        for oy in 0 ..< outHeight {
                            let w0 = rowTaps.offset[oy], n = rowTaps.offset[oy + 1] - w0
                            let top = (rowTaps.first[oy] - firstRow) * stride
                            for i in 0 ..< stride { acc[i] = 0 }
                            for k in 0 ..< n {
                                let weight = weights[w0 + k], from = top + k * stride
                                for i in 0 ..< stride { acc[i] += weight * mid[from + i] }
                            }
                            let out = oy * stride
                            for i in 0 ..< stride { dst[out + i] = UInt8(max(0, min(255, acc[i])) + 0.5) }
                        }
                    }
                }
            }
        }
        return result
    }

    /// Taps laid out flat: output pixel `i` reads from source index `first[i]` with
    /// `weights[offset[i] ..< offset[i + 1]]`.
    private struct Flat {
        var first: [Int] = []
        var offset: [Int] = [0]
        var weights: [Float] = []

        init(_ taps: Taps) {
            first.reserveCapacity(taps.taps.count)
            offset.reserveCapacity(taps.taps.count + 1)
            for tap in taps.taps {
                first.append(tap.first)
                weights += tap.weights
                offset.append(weights.count)
            }
        }
    }

    /// For output pixels `range` of `count`: the first source index each reads and the normalised weights.
    static func weights(start: Double, span: Double, count: Int, limit: Int,
                        range: Range<Int>) -> [(first: Int, weights: [Float])] {
        let scale = span / Double(count) // source pixels per output pixel
        return range.map { i in
            if scale >= 1 {
                let a = start + Double(i) * scale, b = a + scale
                let first = max(0, Int(a.rounded(.down))), last = min(limit, Int(b.rounded(.up)))
                var w = (first ..< max(first + 1, last)).map { p -> Float in
                    Float(max(0, min(b, Double(p + 1)) - max(a, Double(p))))
                }
                let total = w.reduce(0, +)
                if total > 0 { w = w.map { $0 / total } } else { w = [1] }
                let clamped = min(first, limit - 1)
                return (clamped, clamped == first ? w : [1])
            }
            let centre = start + (Double(i) + 0.5) * scale - 0.5
            let p0 = Int(centre.rounded(.down)), t = Float(centre - Double(p0))
            let a = min(max(p0, 0), limit - 1), b = min(max(p0 + 1, 0), limit - 1)
            return a == b ? (a, [1]) : (a, [1 - t, t])
        }
    }
}
