import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// One IIIF Image API 3.0 image request, `{region}/{size}/{rotation}/{quality}.{format}`: its segments as
/// `IIIFParameters` reads them, resolved against the image size and the service limits. Pure: no I/O, so every
/// rule is testable alone.
struct IIIFRequest: Equatable {
    typealias Quality = IIIFParameters.Quality

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

    /// The request a route's decoded captures make.
    init(region: String, size: String, rotation: String, qualityFormat: String,
         imageWidth W: Int, imageHeight H: Int, limits: Limits) throws(APIError) {
        let parameters = TileURL.withBytes(region) { region in
            TileURL.withBytes(size) { size in
                TileURL.withBytes(rotation) { rotation in
                    TileURL.withBytes(qualityFormat) { qualityFormat in
                        Result { () throws(APIError) in
                            try IIIFParameters(region: region, size: size, rotation: rotation, qualityFormat: qualityFormat)
                        }
                    }
                }
            }
        }
        try self.init(parameters.get(), imageWidth: W, imageHeight: H, limits: limits)
    }

    init(_ parameters: IIIFParameters, imageWidth W: Int, imageHeight H: Int, limits: Limits) throws(APIError) {
        region = try Self.region(parameters.region, W, H)
        (width, height, sizeIsExplicit) = try Self.size(parameters.size, upscale: parameters.upscale, region.width, region.height, limits)
        (mirror, quarterTurns, quality, format) = (parameters.mirror, parameters.quarterTurns, parameters.quality, parameters.format)
    }

    /// The pyramid tile this request is, in `geometry`, or nil: a plain crop-and-scale whose region and size are
    /// exactly one tile's (`PyramidGeometry.tile(exactly:)`). The one choice, the routes' and the fast path's.
    func tile(in geometry: PyramidGeometry) -> TileCoordinate? {
        guard isPlain else { return nil }
        return geometry.tile(exactly: region, outWidth: width, outHeight: height, slack: sizeIsExplicit ? 0 : 1)
    }

    /// Whether the output is a plain crop-and-scale: no mirror, no turn, colours as they are.
    var isPlain: Bool { !mirror && quarterTurns == 0 && (quality == .default || quality == .color) }

    static func region(_ region: IIIFParameters.Region, _ W: Int, _ H: Int) throws(APIError) -> PixelRect {
        let rect: PixelRect
        switch region {
        case .full: return PixelRect(x: 0, y: 0, width: W, height: H)
        case .square:
            let side = min(W, H)
            return PixelRect(x: (W - side) / 2, y: (H - side) / 2, width: side, height: side)
        case let .percent(px, py, pw, ph):
            let v = [px, py, pw, ph].map { min($0, 1000) } // beyond 100 % is outside anyway; keeps huge numbers from overflowing Int
            let x = Int((v[0] * Double(W) / 100).rounded()), y = Int((v[1] * Double(H) / 100).rounded())
            let x1 = Int(((v[0] + v[2]) * Double(W) / 100).rounded()), y1 = Int(((v[1] + v[3]) * Double(H) / 100).rounded())
            rect = PixelRect(x: x, y: y, width: max(1, x1 - x), height: max(1, y1 - y))
        case let .pixels(x, y, width, height):
            rect = PixelRect(x: x, y: y, width: width, height: height)
        }
        let cropped = rect.intersection(PixelRect(x: 0, y: 0, width: W, height: H))
        guard !cropped.isEmpty else { throw .badRequest("region \(rect.x),\(rect.y),\(rect.width),\(rect.height) lies outside the \(W)×\(H) image") }
        return cropped
    }

    /// The output size, and whether the client fixed both sides (`w,h`).
    static func size(_ size: IIIFParameters.Size, upscale up: Bool, _ rw: Int, _ rh: Int, _ limits: Limits) throws(APIError) -> (Int, Int, Bool) {
        var w: Double, h: Double
        var explicit = false
        func scaled(_ s: Double) -> (Double, Double) { (Double(rw) * s, Double(rh) * s) }
        switch size {
        case .max:
            let fit = min(Double(limits.maxWidth) / Double(rw), Double(limits.maxHeight) / Double(rh),
                          (Double(limits.maxArea) / (Double(rw) * Double(rh))).squareRoot(), limits.maxScale)
            (w, h) = scaled(up ? fit : min(1, fit))
        case let .percent(n): (w, h) = scaled(n / 100)
        case let .fit(fw, fh): (w, h) = scaled(min(Double(fw) / Double(rw), Double(fh) / Double(rh)))
        case let .exact(ew, eh):
            (w, h) = (Double(ew), Double(eh))
            explicit = true
        case let .width(n): (w, h) = (Double(n), Double(rh) * Double(n) / Double(rw))
        case let .height(n): (w, h) = (Double(rw) * Double(n) / Double(rh), Double(n))
        }
        guard w.isFinite, h.isFinite, w < 1e9, h < 1e9 else {
            throw .badRequest("the size asked for exceeds the limits maxWidth \(limits.maxWidth), maxHeight \(limits.maxHeight), maxArea \(limits.maxArea)")
        }
        let width = max(1, Int(w.rounded())), height = max(1, Int(h.rounded()))
        if !up && (width > rw || height > rh) {
            throw .badRequest("size \(width)×\(height) is larger than the \(rw)×\(rh) region; ask with ^ to upscale")
        }
        guard width <= limits.maxWidth, height <= limits.maxHeight, width * height <= limits.maxArea else {
            throw .badRequest("size \(width)×\(height) exceeds the limits maxWidth \(limits.maxWidth), maxHeight \(limits.maxHeight), maxArea \(limits.maxArea)")
        }
        return (width, height, explicit)
    }
}
