import Pyramid
import ImageCodecs

#if canImport(Glibc)
import Glibc
#endif

/// The built-in default image: a deterministic 16,384 × 10,240 landscape (sky, clouds, ridged mountains with
/// snow, fields, a lake) computed per pixel, so `tileserver serve` with no file shows something worth zooming
/// at once, with no download and nothing written.
///
/// Each output pixel samples the scene at its centre with noise octaves limited to what the pixel can show
/// (wavelengths of at least two output pixels), which is what area averaging would leave: no aliasing at any
/// level, and a tile costs only its own pixels.
struct ProceduralPhoto: ImageSource {
    static let width = 16_384
    static let height = 10_240

    let path = "builtin:landscape"
    let info = ImageInfo(format: .jpeg, width: ProceduralPhoto.width, height: ProceduralPhoto.height, channels: 3,
                         progressive: false, orientation: .up, colorSpace: "rgb", bitDepth: 8, restartInterval: 0,
                         fileSize: 0, modified: 0)
    func isRandomAccess(atShrink shrink: Int) -> Bool { true }
    var kind: String { "procedural" }

    @discardableResult
    func decode(_ rect: PixelRect, shrink: Int, bandRows: Int, into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        try checkRegion(rect, shrink: shrink)
        let rows = max(1, bandRows)
        var band = [UInt8](repeating: 0, count: min(rows, rect.height) * rect.width * 3)
        var y = 0
        let s = Double(shrink)
        while y < rect.height {
            let n = min(rows, rect.height - y)
            for j in 0 ..< n {
                let py = (Double(rect.y + y + j) + 0.5) * s
                for i in 0 ..< rect.width {
                    let px = (Double(rect.x + i) + 0.5) * s
                    let (r, g, b) = Self.color(x: px, y: py, footprint: s)
                    let o = (j * rect.width + i) * 3
                    band[o] = r
                    band[o + 1] = g
                    band[o + 2] = b
                }
            }
            try band.withUnsafeBufferPointer { buf in
                try body(PixelBand(y: y, rows: n, width: rect.width, channels: 3,
                                   bytes: UnsafeBufferPointer(rebasing: buf[0 ..< n * rect.width * 3])))
            }
            y += n
        }
        return DecodeWarnings()
    }

    /// The scene at full-resolution point (x, y), band-limited for a pixel `footprint` pixels wide.
    static func color(x: Double, y: Double, footprint: Double) -> (UInt8, UInt8, UInt8) {
        let H = Double(height)
        let horizon = 0.60 * H + 0.05 * H * Noise.fbm(x / 5000, 3.7, footprint: footprint / 5000, octaves: 4)
        let ridge = 0.30 * H * (0.35 + 0.65 * Noise.ridged(x / 2600, 11.3, footprint: footprint / 2600, octaves: 9))
        let peak = horizon - ridge
        var c: (Double, Double, Double)
        if y < peak {
            let t = y / max(peak, 1)
            c = (0.20 + 0.45 * t, 0.38 + 0.40 * t, 0.75 + 0.20 * t)
            let cloud = Noise.fbm(x / 2400, y / 800, footprint: footprint / 800, octaves: 8)
            let cover = min(1, max(0, (cloud - 0.05) * 2.2)) * (1 - 0.6 * t)
            c = mix(c, (0.97, 0.97, 0.98), cover)
        } else if y < horizon {
            let height = (horizon - y) / max(ridge, 1)
            let rock = 0.42 + 0.18 * Noise.fbm(x / 300, y / 300, footprint: footprint / 300, octaves: 9)
            c = (rock * 0.95, rock * 0.9, rock * 0.85)
            let snowLine = 0.62 + 0.12 * Noise.fbm(x / 900, y / 500, footprint: footprint / 500, octaves: 6)
            c = mix(c, (0.95, 0.96, 0.99), min(1, max(0, (height - snowLine) * 6)))
        } else {
            let depth = (y - horizon) / (H - horizon)
            let field = Noise.fbm(x / 1400, y / 500, footprint: footprint / 500, octaves: 9)
            c = (0.30 + 0.25 * field, 0.45 + 0.20 * field - 0.1 * depth, 0.18 + 0.08 * field)
            let lake = Noise.fbm(x / 4000 + 7.1, y / 1500, footprint: footprint / 1500, octaves: 5)
            c = mix(c, (0.18, 0.32, 0.50 + 0.1 * depth), min(1, max(0, (lake - 0.25) * 8)))
            c = mix(c, (0.25, 0.22, 0.12), 0.3 * depth)
        }
        let grain = 0.04 * Noise.fbm(x / 24, y / 24, footprint: footprint / 24, octaves: 5)
        return (byte(c.0 + grain), byte(c.1 + grain), byte(c.2 + grain))
    }

    private static func mix(_ a: (Double, Double, Double), _ b: (Double, Double, Double), _ t: Double) -> (Double, Double, Double) {
        (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, a.2 + (b.2 - a.2) * t)
    }

    private static func byte(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
}

/// Deterministic value noise and its fractal sums.
enum Noise {
    /// Smoothly interpolated lattice noise in [-1, 1].
    static func value(_ x: Double, _ y: Double) -> Double {
        let xi = floor(x), yi = floor(y)
        let fx = x - xi, fy = y - yi
        let ix = Int64(xi), iy = Int64(yi)
        let u = fx * fx * (3 - 2 * fx), v = fy * fy * (3 - 2 * fy)
        let a = hash(ix, iy), b = hash(ix + 1, iy), c = hash(ix, iy + 1), d = hash(ix + 1, iy + 1)
        return (a + (b - a) * u) + ((c + (d - c) * u) - (a + (b - a) * u)) * v
    }

    private static func hash(_ x: Int64, _ y: Int64) -> Double {
        var h = UInt64(bitPattern: x &* 0x27D4_EB2F_1656_67C5 ^ y &* 0x1656_67B1_9E37_79F9)
        h ^= h >> 31
        h &*= 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        return Double(h >> 11) / Double(1 << 52) - 1
    }

    /// Sum of octaves of `value`, halving amplitude and wavelength each time; octaves whose wavelength is
    /// shorter than two pixel footprints are left out and the last kept one fades, so nothing aliases.
    static func fbm(_ x: Double, _ y: Double, footprint: Double, octaves: Int) -> Double {
        var sum = 0.0, amplitude = 0.5, frequency = 1.0
        for _ in 0 ..< octaves {
            let wavelength = 1 / frequency
            let keep = min(1, max(0, wavelength / footprint - 1))
            if keep <= 0 { break }
            sum += amplitude * keep * value(x * frequency, y * frequency)
            amplitude *= 0.5
            frequency *= 2
        }
        return sum
    }

    /// Ridged noise in [0, 1] for mountain crests.
    static func ridged(_ x: Double, _ y: Double, footprint: Double, octaves: Int) -> Double {
        var sum = 0.0, amplitude = 0.5, frequency = 1.0, norm = 0.0
        for _ in 0 ..< octaves {
            let keep = min(1, max(0, (1 / frequency) / footprint - 1))
            if keep <= 0 { break }
            sum += amplitude * keep * (1 - abs(value(x * frequency, y * frequency)))
            norm += amplitude
            amplitude *= 0.5
            frequency *= 2
        }
        return norm > 0 ? sum / norm : 0.5
    }
}
