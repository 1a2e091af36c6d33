/// Resizes pixels to any size, separably: area averaging where the image shrinks (each output pixel is the
/// coverage-weighted mean of the source pixels under it), linear interpolation where it grows.
public enum Resampler {
    /// The source window (`x`, `y`, `width`, `height`, fractional, in `source` pixels) as `outWidth × outHeight`.
    public static func resample(_ source: PixelBuffer, x: Double, y: Double, width: Double, height: Double,
                                outWidth: Int, outHeight: Int) -> PixelBuffer {
        if width == Double(outWidth), height == Double(outHeight), x == x.rounded(), y == y.rounded(),
           PixelRect(x: Int(x), y: Int(y), width: outWidth, height: outHeight).fits(width: source.width, height: source.height) {
            return source.cropped(to: PixelRect(x: Int(x), y: Int(y), width: outWidth, height: outHeight)) // nothing to resample
        }
        let c = source.channels
        let columns = weights(start: x, span: width, count: outWidth, limit: source.width)
        let rows = weights(start: y, span: height, count: outHeight, limit: source.height)
        // Horizontal pass into floats, only for the source rows the vertical pass will read.
        let firstRow = rows.map(\.first).min() ?? 0
        let lastRow = rows.map { $0.first + $0.weights.count }.max() ?? 0
        var middle = [Float](repeating: 0, count: (lastRow - firstRow) * outWidth * c)
        source.bytes.withUnsafeBufferPointer { src in
            for sy in firstRow ..< lastRow {
                let line = sy * source.width * c
                let out = (sy - firstRow) * outWidth * c
                for (ox, w) in columns.enumerated() {
                    for ch in 0 ..< c {
                        var sum: Float = 0
                        for (k, weight) in w.weights.enumerated() { sum += weight * Float(src[line + (w.first + k) * c + ch]) }
                        middle[out + ox * c + ch] = sum
                    }
                }
            }
        }
        var result = PixelBuffer(width: outWidth, height: outHeight, channels: c)
        for (oy, w) in rows.enumerated() {
            for i in 0 ..< outWidth * c {
                var sum: Float = 0
                for (k, weight) in w.weights.enumerated() { sum += weight * middle[(w.first + k - firstRow) * outWidth * c + i] }
                result.bytes[oy * outWidth * c + i] = UInt8(max(0, min(255, sum.rounded())))
            }
        }
        return result
    }

    /// For each output pixel: the first source index it reads and the normalised weights from there on.
    static func weights(start: Double, span: Double, count: Int, limit: Int) -> [(first: Int, weights: [Float])] {
        let scale = span / Double(count) // source pixels per output pixel
        return (0 ..< count).map { i in
            if scale >= 1 {
                let a = start + Double(i) * scale, b = a + scale
                let first = max(0, Int(a.rounded(.down))), last = min(limit, Int(b.rounded(.up)))
                var w = (first ..< max(first + 1, last)).map { p -> Float in
                    Float(max(0, min(b, Double(p + 1)) - max(a, Double(p))))
                }
                let total = w.reduce(0, +)
                if total > 0 { w = w.map { $0 / total } } else { w = [1] }
                return (min(first, limit - 1), w)
            }
            let centre = start + (Double(i) + 0.5) * scale - 0.5
            let p0 = Int(centre.rounded(.down)), t = Float(centre - Double(p0))
            let a = min(max(p0, 0), limit - 1), b = min(max(p0 + 1, 0), limit - 1)
            return a == b ? (a, [1]) : (a, [1 - t, t])
        }
    }
}
