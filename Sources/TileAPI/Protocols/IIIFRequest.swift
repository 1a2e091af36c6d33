import HTTPTransport
import Pyramid
import ImageCodecs

/// One IIIF Image API 3.0 image request, `{region}/{size}/{rotation}/{quality}.{format}`, parsed and resolved
/// against the image size and the service limits. Pure: no I/O, so every rule is testable alone.
struct IIIFRequest: Equatable {
    enum Quality: String { case `default`, color, gray, bitonal }

    /// Region in full-resolution pixels, already cropped to the image.
    var region: PixelRect
    var width: Int
    var height: Int
    /// Whether the client fixed both output sides (`w,h`); other size forms let the server derive one or both.
    var sizeIsExplicit: Bool
    var mirror: Bool
    /// Clockwise quarter turns, 0 to 3.
    var quarterTurns: Int
    var quality: Quality
    var format: ImageFormat

    /// Mirror, turn and quality as the tile service applies them.
    var transform: PixelTransform {
        let tone: PixelTransform.Tone = switch quality {
        case .gray: .gray
        case .bitonal: .bitonal
        case .default, .color: .color
        }
        return PixelTransform(mirror: mirror, quarterTurns: quarterTurns, tone: tone)
    }

    /// Service limits announced in info.json.
    struct Limits: Equatable {
        var maxWidth: Int
        var maxHeight: Int
        var maxArea: Int
        /// Output pixels per image pixel that `max` may reach (a tiered image's public size).
        var maxScale = Double.infinity
    }

    static func limits(width: Int, height: Int, maxZoom: Double) -> Limits {
        let zoom = max(1, maxZoom)
        return Limits(maxWidth: Int((Double(width) * zoom).rounded(.down)), maxHeight: Int((Double(height) * zoom).rounded(.down)),
                      maxArea: min(Int(Double(width) * Double(height) * zoom * zoom), 100_000_000))
    }

    init(region: String, size: String, rotation: String, qualityFormat: String,
         imageWidth W: Int, imageHeight H: Int, limits: Limits) throws(APIError) {
        self.region = try Self.region(region, W, H)
        (width, height, sizeIsExplicit) = try Self.size(size, self.region.width, self.region.height, limits)
        (mirror, quarterTurns) = try Self.rotation(rotation)
        guard let dot = qualityFormat.utf8.lastIndex(of: UInt8(ascii: ".")), let q = Quality(rawValue: String(qualityFormat[..<dot])) else {
            throw .badRequest("quality must be default, color, gray or bitonal, followed by .jpg, .png, .webp or .avif")
        }
        quality = q
        let suffix = qualityFormat[qualityFormat.utf8.index(after: dot)...]
        switch suffix {
        case "jpg", "png", "webp", "avif":
            guard let parsed = ImageFormat(fileExtension: suffix) else { throw .badRequest("format must be jpg, png, webp or avif") }
            format = parsed
        case "tif", "gif", "jp2", "pdf": throw .notImplemented("format \(suffix) is not supported; use jpg, png, webp or avif")
        default: throw .badRequest("format must be jpg, png, webp or avif")
        }
    }

    /// `count` comma-separated non-negative decimals (digits and at most a point), or nil.
    private static func numbers(_ text: Substring, count: Int) -> [Double]? {
        let parts = text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard parts.count == count else { return nil }
        var values: [Double] = []
        values.reserveCapacity(count)
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ (48 ... 57).contains($0) || $0 == UInt8(ascii: ".") }),
                  let value = Double(Substring(part)) else { return nil }
            values.append(value)
        }
        return values
    }

    /// Whether the output is a plain crop-and-scale: no mirror, no turn, colours as they are.
    var isPlain: Bool { !mirror && quarterTurns == 0 && (quality == .default || quality == .color) }

    static func region(_ text: String, _ W: Int, _ H: Int) throws(APIError) -> PixelRect {
        var rect: PixelRect
        switch text {
        case "full": return PixelRect(x: 0, y: 0, width: W, height: H)
        case "square":
            let side = min(W, H)
            return PixelRect(x: (W - side) / 2, y: (H - side) / 2, width: side, height: side)
        default:
            if text.hasPrefix("pct:") {
                guard var v = numbers(text.dropFirst(4), count: 4), v[2] > 0, v[3] > 0 else {
                    throw .badRequest("region pct:x,y,w,h needs four non-negative numbers with w and h above 0")
                }
                v = v.map { min($0, 1000) } // beyond 100 % is outside anyway; keeps huge numbers from overflowing Int
                let x = Int((v[0] * Double(W) / 100).rounded()), y = Int((v[1] * Double(H) / 100).rounded())
                let x1 = Int(((v[0] + v[2]) * Double(W) / 100).rounded()), y1 = Int(((v[1] + v[3]) * Double(H) / 100).rounded())
                rect = PixelRect(x: x, y: y, width: max(1, x1 - x), height: max(1, y1 - y))
            } else {
                guard let v = numbers(text[...], count: 4), v.allSatisfy({ $0 == $0.rounded() && $0 < 1e9 }), v[2] > 0, v[3] > 0 else {
                    throw .badRequest("region must be full, square, x,y,w,h or pct:x,y,w,h")
                }
                rect = PixelRect(x: Int(v[0]), y: Int(v[1]), width: Int(v[2]), height: Int(v[3]))
            }
        }
        let cropped = rect.intersection(PixelRect(x: 0, y: 0, width: W, height: H))
        guard !cropped.isEmpty else { throw .badRequest("region \(text) lies outside the \(W)×\(H) image") }
        return cropped
    }

    /// The output size, and whether the client fixed both sides (`w,h`).
    static func size(_ text: String, _ rw: Int, _ rh: Int, _ limits: Limits) throws(APIError) -> (Int, Int, Bool) {
        let up = text.hasPrefix("^")
        let spec = up ? text.dropFirst() : text[...]
        var w: Double, h: Double
        var explicit = false
        func scaled(_ s: Double) -> (Double, Double) { (Double(rw) * s, Double(rh) * s) }
        if spec == "max" {
            let fit = min(Double(limits.maxWidth) / Double(rw), Double(limits.maxHeight) / Double(rh),
                          (Double(limits.maxArea) / (Double(rw) * Double(rh))).squareRoot(), limits.maxScale)
            (w, h) = scaled(up ? fit : min(1, fit))
        } else if spec.hasPrefix("pct:") {
            guard let v = numbers(spec.dropFirst(4), count: 1), v[0] > 0 else { throw .badRequest("size pct:n needs a number above 0") }
            (w, h) = scaled(v[0] / 100)
        } else if spec.hasPrefix("!") {
            guard let v = numbers(spec.dropFirst(), count: 2), v[0] >= 1, v[1] >= 1 else { throw .badRequest("size !w,h needs two whole numbers above 0") }
            (w, h) = scaled(min(v[0] / Double(rw), v[1] / Double(rh)))
        } else if let v = numbers(spec, count: 2) {
            guard v[0] >= 1, v[1] >= 1, v.allSatisfy({ $0 == $0.rounded() }) else { throw .badRequest("size w,h needs two whole numbers above 0") }
            (w, h) = (v[0], v[1])
            explicit = true
        } else {
            let parts = spec.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].isEmpty != parts[1].isEmpty, let n = Double(parts[0].isEmpty ? parts[1] : parts[0]),
                  n >= 1, n == n.rounded() else {
                throw .badRequest("size must be max, w,, ,h, pct:n, w,h or !w,h, optionally after ^")
            }
            (w, h) = parts[0].isEmpty ? (Double(rw) * n / Double(rh), n) : (n, Double(rh) * n / Double(rw))
        }
        guard w.isFinite, h.isFinite, w < 1e9, h < 1e9 else {
            throw .badRequest("size \(text) exceeds the limits maxWidth \(limits.maxWidth), maxHeight \(limits.maxHeight), maxArea \(limits.maxArea)")
        }
        let width = max(1, Int(w.rounded())), height = max(1, Int(h.rounded()))
        if !up && (width > rw || height > rh) {
            throw .badRequest("size \(text) is larger than the \(rw)×\(rh) region; ask with ^ to upscale")
        }
        guard width <= limits.maxWidth, height <= limits.maxHeight, width * height <= limits.maxArea else {
            throw .badRequest("size \(width)×\(height) exceeds the limits maxWidth \(limits.maxWidth), maxHeight \(limits.maxHeight), maxArea \(limits.maxArea)")
        }
        return (width, height, explicit)
    }

    static func rotation(_ text: String) throws(APIError) -> (Bool, Int) {
        let mirror = text.hasPrefix("!")
        let number = mirror ? text.dropFirst() : text[...]
        guard !number.isEmpty, number.utf8.allSatisfy({ (48 ... 57).contains($0) || $0 == UInt8(ascii: ".") }), let degrees = Double(number), (0 ... 360).contains(degrees) else {
            throw .badRequest("rotation must be 0, 90, 180 or 270, optionally after ! to mirror")
        }
        guard degrees.truncatingRemainder(dividingBy: 90) == 0 else {
            throw .notImplemented("rotation by \(number)° is not supported; use a multiple of 90")
        }
        return (mirror, Int(degrees / 90) % 4)
    }
}
