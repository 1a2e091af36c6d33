/// Area averaging by an integer factor: each output pixel is the rounded mean of the `factor × factor` input
/// block under it, or of the part of the block inside the image at the right and bottom edges.
enum BoxFilter {
    /// Shrinks `inRows` input rows (starting `first` bytes into each row, `columns` pixels wide) into
    /// `outRows` output rows of `outStride / channels` pixels. `sums` is scratch of `outStride` elements.
    static func shrinkRows(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, factor r: Int,
                           outRows: Int, inRows: Int, inStride: Int, outStride: Int, first: Int,
                           columns: Int, channels: Int, sums: inout [UInt32]) {
        let outWidth = outStride / channels
        if sums.count < outStride { sums = [UInt32](repeating: 0, count: outStride) }
        sums.withUnsafeMutableBufferPointer { acc in
            for row in 0 ..< outRows {
                let rowStart = row * r
                let rowsHere = min(r, inRows - rowStart)
                acc.update(repeating: 0)
                for k in 0 ..< rowsHere {
                    let line = src + (rowStart + k) * inStride + first
                    for x in 0 ..< outWidth {
                        let c0 = x * r, c1 = min(c0 + r, columns)
                        var p = line + c0 * channels
                        let base = x * channels
                        for _ in c0 ..< c1 {
                            for c in 0 ..< channels { acc[base + c] &+= UInt32(p[c]) }
                            p += channels
                        }
                    }
                }
                let out = dst + row * outStride
                for x in 0 ..< outWidth {
                    let n = UInt32(min(r, columns - x * r) * rowsHere)
                    for c in 0 ..< channels {
                        out[x * channels + c] = UInt8((acc[x * channels + c] + n / 2) / n)
                    }
                }
            }
        }
    }
}
