/// 2 × 2 averaging of rows: one level of a pyramid from the level above, as `vips dzsave` and the builder make it.
/// Rows come in pairs as a streaming pass delivers them (`LevelBand`) or from a whole buffer (`PixelBuffer.halved`).
package enum RowHalving {
    /// Averages two rows (or one) 2 × 2 into a row of `ceil(width / 2)` pixels, rounding to nearest (the sum of n
    /// samples plus n / 2, divided by n, done with shifts).
    package static func halve(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>?, width: Int, channels: Int) -> [UInt8] {
        let outWidth = (width + 1) / 2
        return [UInt8](unsafeUninitializedCapacity: outWidth * channels) { dst, count in
            let out = dst.baseAddress!, pa = a.baseAddress!, pb = b?.baseAddress
            // A constant channel count lets the compiler unroll the inner loop.
            switch channels {
            case 3: halve(pa, pb, out, width: width, channels: 3)
            case 4: halve(pa, pb, out, width: width, channels: 4)
            case 1: halve(pa, pb, out, width: width, channels: 1)
            default: halve(pa, pb, out, width: width, channels: channels)
            }
            count = outWidth * channels
        }
    }

    @inline(__always)
    private static func halve(_ pa: UnsafePointer<UInt8>, _ pb: UnsafePointer<UInt8>?, _ out: UnsafeMutablePointer<UInt8>,
                              width: Int, channels: Int) {
        let pairs = width / 2
        if let pb {
            for x in 0 ..< pairs {
                let i = 2 * x * channels, o = x * channels
                for c in 0 ..< channels {
                    let sum = UInt16(pa[i + c]) + UInt16(pa[i + channels + c]) + UInt16(pb[i + c]) + UInt16(pb[i + channels + c])
                    out[o + c] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                }
            }
            if width % 2 == 1 {
                let i = 2 * pairs * channels, o = pairs * channels
                for c in 0 ..< channels { out[o + c] = UInt8(truncatingIfNeeded: (UInt16(pa[i + c]) + UInt16(pb[i + c]) + 1) >> 1) }
            }
        } else {
            for x in 0 ..< pairs {
                let i = 2 * x * channels, o = x * channels
                for c in 0 ..< channels {
                    out[o + c] = UInt8(truncatingIfNeeded: (UInt16(pa[i + c]) + UInt16(pa[i + channels + c]) + 1) >> 1)
                }
            }
            if width % 2 == 1 {
                let i = 2 * pairs * channels, o = pairs * channels
                for c in 0 ..< channels { out[o + c] = pa[i + c] }
            }
        }
    }
}
