/// Whole-image pixel operations for IIIF outputs: mirror, quarter turns, gray and bitonal.
extension PixelBuffer {
    /// Left and right exchanged.
    package func mirrored() -> PixelBuffer {
        var out = self
        for y in 0 ..< height {
            for x in 0 ..< width {
                let from = (y * width + (width - 1 - x)) * channels, to = (y * width + x) * channels
                for c in 0 ..< channels { out.bytes[to + c] = bytes[from + c] }
            }
        }
        return out
    }

    /// Turned clockwise by `quarterTurns` × 90°.
    package func rotated(quarterTurns: Int) -> PixelBuffer {
        let turns = ((quarterTurns % 4) + 4) % 4
        guard turns != 0 else { return self }
        let (w, h) = turns == 2 ? (width, height) : (height, width)
        var out = PixelBuffer(width: w, height: h, channels: channels)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let (nx, ny): (Int, Int) = switch turns {
                case 1: (height - 1 - y, x)
                case 2: (width - 1 - x, height - 1 - y)
                default: (y, width - 1 - x)
                }
                let from = (y * width + x) * channels, to = (ny * w + nx) * channels
                for c in 0 ..< channels { out.bytes[to + c] = bytes[from + c] }
            }
        }
        return out
    }

    /// One channel of Rec. 601 luma; `bitonal` thresholds it at 128 to black and white.
    package func gray(bitonal: Bool) -> PixelBuffer {
        var out = PixelBuffer(width: width, height: height, channels: 1)
        for p in 0 ..< width * height {
            let r = Double(bytes[p * channels]), g = Double(bytes[p * channels + 1]), b = Double(bytes[p * channels + 2])
            let luma = 0.299 * r + 0.587 * g + 0.114 * b
            out.bytes[p] = bitonal ? (luma >= 128 ? 255 : 0) : UInt8(min(255, luma.rounded()))
        }
        return out
    }
}
