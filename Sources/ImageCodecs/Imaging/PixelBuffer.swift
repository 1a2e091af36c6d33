/// An 8-bit image in memory, rows top to bottom, samples interleaved (RGB or RGBA), no padding.
public struct PixelBuffer: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var bytes: [UInt8]

    public init(width: Int, height: Int, channels: Int, bytes: [UInt8]) {
        precondition(bytes.count == width * height * channels, "pixel buffer size mismatch")
        self.width = width
        self.height = height
        self.channels = channels
        self.bytes = bytes
    }

    package init(width: Int, height: Int, channels: Int, fill: UInt8 = 0) {
        self.init(width: width, height: height, channels: channels,
                  bytes: [UInt8](repeating: fill, count: width * height * channels))
    }

    var rowBytes: Int { width * channels }

    /// A copy of `rect`, which must lie inside the buffer.
    func cropped(to rect: PixelRect) -> PixelBuffer {
        precondition(rect.fits(width: width, height: height), "crop \(rect) outside \(width)×\(height)")
        var out = [UInt8](repeating: 0, count: rect.area * channels)
        let rowLength = rect.width * channels
        for row in 0 ..< rect.height {
            let from = ((rect.y + row) * width + rect.x) * channels
            out.replaceSubrange(row * rowLength ..< (row + 1) * rowLength, with: bytes[from ..< from + rowLength])
        }
        return PixelBuffer(width: rect.width, height: rect.height, channels: channels, bytes: out)
    }

    /// The same pixels without alpha, composited over `background` (vips flattens onto black by default).
    package func flattened(background: UInt8 = 0) -> PixelBuffer {
        guard channels == 4 else { return self }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let bg = Int(background)
        for p in 0 ..< width * height {
            let a = Int(bytes[p * 4 + 3])
            for c in 0 ..< 3 {
                out[p * 3 + c] = UInt8((Int(bytes[p * 4 + c]) * a + bg * (255 - a) + 127) / 255)
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: out)
    }
}
