/// Shrinking whole buffers: 2 × 2 halvings as pyramids cascade them, and area averages by any factor.
extension PixelBuffer {
    /// This image halved `times` times with 2 × 2 averages (ceil sizes; a lone edge column or row averages
    /// what it has), as `vips dzsave` and the builder make each level from the one above.
    package func halved(times: Int) -> PixelBuffer {
        var image = self
        for _ in 0 ..< times {
            let w = (image.width + 1) / 2, h = (image.height + 1) / 2
            var out = [UInt8]()
            out.reserveCapacity(w * h * channels)
            image.bytes.withUnsafeBufferPointer { src in
                for y in 0 ..< h {
                    let a = UnsafeBufferPointer(rebasing: src[(2 * y) * image.rowBytes ..< (2 * y + 1) * image.rowBytes])
                    let b = 2 * y + 1 < image.height
                        ? UnsafeBufferPointer(rebasing: src[(2 * y + 1) * image.rowBytes ..< (2 * y + 2) * image.rowBytes]) : nil
                    out += RowHalving.halve(a, b, width: image.width, channels: channels)
                }
            }
            image = PixelBuffer(width: w, height: h, channels: channels, bytes: out)
        }
        return image
    }

    /// This image shrunk by `factor` with area averaging: `ceil(width / factor) × ceil(height / factor)`.
    func boxShrunk(by factor: Int) -> PixelBuffer {
        guard factor > 1 else { return self }
        let w = (width + factor - 1) / factor, h = (height + factor - 1) / factor
        var out = [UInt8](repeating: 0, count: w * h * channels)
        var sums: [UInt32] = []
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                BoxFilter.shrinkRows(src.baseAddress!, dst.baseAddress!, factor: factor, outRows: h, inRows: height,
                                     inStride: rowBytes, outStride: w * channels, first: 0, columns: width,
                                     channels: channels, sums: &sums)
            }
        }
        return PixelBuffer(width: w, height: h, channels: channels, bytes: out)
    }
}
