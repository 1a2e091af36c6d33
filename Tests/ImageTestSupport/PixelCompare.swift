import ImageCodecs

/// Pixel comparisons used by the decode tests.
package enum PixelCompare {
    /// Mean absolute difference per sample.
    package static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
        var total = 0
        for i in 0 ..< a.bytes.count { total += abs(Int(a.bytes[i]) - Int(b.bytes[i])) }
        return Double(total) / Double(max(1, a.bytes.count))
    }

    package static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        var worst = 0
        for i in 0 ..< a.bytes.count { worst = max(worst, abs(Int(a.bytes[i]) - Int(b.bytes[i]))) }
        return worst
    }

    package static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var se = 0.0
        for i in 0 ..< a.bytes.count {
            let d = Double(Int(a.bytes[i]) - Int(b.bytes[i]))
            se += d * d
        }
        let mse = se / Double(a.bytes.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// An independent box shrink: each output pixel is the rounded mean of the `factor × factor` block under it.
    package static func boxShrink(_ image: PixelBuffer, by factor: Int) -> PixelBuffer {
        let w = (image.width + factor - 1) / factor, h = (image.height + factor - 1) / factor
        var out = PixelBuffer(width: w, height: h, channels: image.channels)
        for y in 0 ..< h {
            for x in 0 ..< w {
                let x1 = min((x + 1) * factor, image.width), y1 = min((y + 1) * factor, image.height)
                let n = (x1 - x * factor) * (y1 - y * factor)
                for c in 0 ..< image.channels {
                    var sum = 0
                    for yy in y * factor ..< y1 {
                        for xx in x * factor ..< x1 { sum += Int(image.bytes[(yy * image.width + xx) * image.channels + c]) }
                    }
                    out.bytes[(y * w + x) * image.channels + c] = UInt8((sum + n / 2) / n)
                }
            }
        }
        return out
    }
}

import Foundation
