/// Resizes pixels to any size, separably: area averaging where the image shrinks (each output pixel is the
/// coverage-weighted mean of the source pixels under it), linear interpolation where it grows.
///
/// Weights are computed in the coordinates of the whole source window, for whichever output pixels are
/// wanted, so an image made in bands (`Taps` for a range of rows) is bit for bit the image made whole.
package enum Resampler {
    /// For each output pixel of one axis: the first source index it reads and the normalised weights from there.
    package struct Taps: Sendable {
        var taps: [(first: Int, weights: [Float])]
        /// The source span the taps read: `lower ..< upper`.
        package var lower: Int { taps.map(\.first).min() ?? 0 }
        package var upper: Int { taps.map { $0.first + $0.weights.count }.max() ?? 0 }

        /// Output pixels `range` of `count` covering `span` source pixels from `start` (fractional), reading
        /// source indices below `limit`.
        package init(start: Double, span: Double, count: Int, limit: Int, range: Range<Int>) {
            taps = Resampler.weights(start: start, span: span, count: count, limit: limit, range: range)
        }
    }

    /// The source window (`x`, `y`, `width`, `height`, fractional, in `source` pixels) as `outWidth × outHeight`.
    package static func resample(_ source: PixelBuffer, x: Double, y: Double, width: Double, height: Double,
                                outWidth: Int, outHeight: Int) -> PixelBuffer {
        let columns = Taps(start: x, span: width, count: outWidth, limit: source.width, range: 0 ..< outWidth)
        let rows = Taps(start: y, span: height, count: outHeight, limit: source.height, range: 0 ..< outHeight)
        return resample(source, originX: 0, originY: 0, columns: columns, rows: rows)
    }

    /// One output pixel per column and row tap, reading `source`, whose first pixel is source index
    /// (`originX`, `originY`) of the axes the taps index.
    package static func resample(_ source: PixelBuffer, originX: Int, originY: Int, columns: Taps, rows: Taps) -> PixelBuffer {
        let c = source.channels
        let outWidth = columns.taps.count, outHeight = rows.taps.count
        if outWidth == 0 || outHeight == 0 { return PixelBuffer(width: outWidth, height: outHeight, channels: c) }
        if columns.taps.allSatisfy({ $0.weights.count == 1 }) && rows.taps.allSatisfy({ $0.weights.count == 1 }) {
            // One source pixel per output pixel (same scale, or nearest at a boundary): copy, a whole row at once
            // where the columns are consecutive (the usual case: a region at a level's own scale).
            let firsts = columns.taps.map(\.first)
            let consecutive = firsts.last.map { $0 - firsts[0] == outWidth - 1 } ?? true
            var result = PixelBuffer(width: outWidth, height: outHeight, channels: c)
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
        // Vertical taps first, into one float row of the source columns the horizontal taps read (a loop over
        // contiguous samples the compiler vectorises), then the horizontal taps of that row straight into the
        // output: the per-pixel walk runs once per output row, not once per source row, and no image-sized
        // intermediate is made. Each output row depends only on its own taps, so bands match the whole image.
        let cols = Flat(columns), rowTaps = Flat(rows)
        let lowerX = columns.lower, span = (columns.upper - lowerX) * c
        let sourceStride = source.width * c, outStride = outWidth * c
        var line = [Float](repeating: 0, count: max(span, 1) + 1)
        var sums = [Float](repeating: 0, count: outStride + 1)
        // Every output byte is written below, so the bytes start uninitialised (no zeroing of a region-sized buffer).
        let bytes = [UInt8](unsafeUninitializedCapacity: outStride * outHeight) { dst, initialised in
            source.bytes.withUnsafeBufferPointer { src in
                line.withUnsafeMutableBufferPointer { lineBuffer in
                    sums.withUnsafeMutableBufferPointer { sumBuffer in
                        let acc = lineBuffer.baseAddress!, left = src.baseAddress! + (lowerX - originX) * c
                        for oy in 0 ..< outHeight {
                            let w0 = rowTaps.offset[oy], n = rowTaps.offset[oy + 1] - w0
                            var from = left + (rowTaps.first[oy] - originY) * sourceStride
                            Self.scale(from, by: rowTaps.weights[w0], into: acc, count: span)
                            for k in 1 ..< max(n, 1) {
                                from += sourceStride
                                Self.accumulate(from, by: rowTaps.weights[w0 + k], into: acc, count: span)
                            }
                            Self.horizontal(UnsafePointer(acc), taps: cols, lowerX: lowerX, channels: c,
                                            sums: sumBuffer.baseAddress!, into: dst.baseAddress! + oy * outStride,
                                            count: outWidth)
                        }
                    }
                }
            }
            initialised = outStride * outHeight
        }
        return PixelBuffer(width: outWidth, height: outHeight, channels: c, bytes: bytes)
    }

    /// `acc[i] = weight × row[i]` for `count` samples.
    @inline(__always)
    private static func scale(_ row: UnsafePointer<UInt8>, by weight: Float, into acc: UnsafeMutablePointer<Float>,
                              count: Int) {
        var i = 0
        while i < count { acc[i] = weight * Float(row[i]); i &+= 1 }
    }

    /// `acc[i] += weight × row[i]` for `count` samples.
    @inline(__always)
    private static func accumulate(_ row: UnsafePointer<UInt8>, by weight: Float,
                                   into acc: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i < count { acc[i] += weight * Float(row[i]); i &+= 1 }
    }

    /// The horizontal taps of one row of vertically filtered samples into `sums` (`count` pixels, one float a
    /// sample), then `sums` rounded into the output row in one loop the compiler vectorises. RGB and RGBA pixels are
    /// summed as one four-float vector a tap (RGB reads and writes one float past its pixel: `line` and `sums` have
    /// one float to spare); each channel's sum is still its taps in order, so the bytes are the scalar sums'.
    @inline(__always)
    private static func horizontal(_ line: UnsafePointer<Float>, taps: Flat, lowerX: Int, channels c: Int,
                                   sums: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<UInt8>, count: Int) {
        taps.first.withUnsafeBufferPointer { first in
            taps.offset.withUnsafeBufferPointer { offset in
                taps.weights.withUnsafeBufferPointer { weights in
                    if c == 3 {
                        vectorSums(line, first: first, offset: offset, weights: weights, lowerX: lowerX, channels: 3,
                                   sums: sums, count: count)
                    } else if c == 4 {
                        vectorSums(line, first: first, offset: offset, weights: weights, lowerX: lowerX, channels: 4,
                                   sums: sums, count: count)
                    } else {
                        for ox in 0 ..< count {
                            let base = line + (first[ox] &- lowerX) &* c
                            let w0 = offset[ox], n = offset[ox &+ 1] &- w0
                            for ch in 0 ..< c {
                                var sum: Float = 0
                                var k = 0
                                while k < n { sum += weights[w0 &+ k] * base[k &* c &+ ch]; k &+= 1 }
                                sums[ox &* c &+ ch] = sum
                            }
                        }
                    }
                    let samples = count &* c
                    var i = 0
                    while i < samples { out[i] = rounded(sums[i]); i &+= 1 }
                }
            }
        }
    }

    /// The horizontal sums of RGB or RGBA pixels, one four-float vector a tap; `channels` is a constant at each
    /// call, so the vector loads' stride is one too (a variable stride measured 12 % slower).
    @inline(__always)
    private static func vectorSums(_ line: UnsafePointer<Float>, first: UnsafeBufferPointer<Int>,
                                   offset: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<Float>, lowerX: Int,
                                   channels c: Int, sums: UnsafeMutablePointer<Float>, count: Int) {
        let pixelBytes = c &* MemoryLayout<Float>.stride
        for ox in 0 ..< count {
            let base = UnsafeRawPointer(line + (first[ox] &- lowerX) &* c)
            let w0 = offset[ox], n = offset[ox &+ 1] &- w0
            var sum = SIMD4<Float>(repeating: 0)
            var k = 0
            while k < n {
                sum += weights[w0 &+ k] * base.loadUnaligned(fromByteOffset: k &* pixelBytes, as: SIMD4<Float>.self)
                k &+= 1
            }
            UnsafeMutableRawPointer(sums + ox &* c).storeBytes(of: sum, as: SIMD4<Float>.self)
        }
    }

    /// A filtered sample as a byte: clamped, then rounded half up, without the checks of a float-to-integer
    /// conversion: adding 2²³ leaves the nearest integer (ties to even) in the low mantissa bits, one too many
    /// where that rounded up past `t`.
    @inline(__always)
    private static func rounded(_ value: Float) -> UInt8 {
        let t = max(0, min(255, value)) + 0.5
        let u = t + 8_388_608
        let over: UInt32 = u - 8_388_608 > t ? 1 : 0
        return UInt8(truncatingIfNeeded: u.bitPattern &- over)
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
