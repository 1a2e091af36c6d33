import ImageCodecs

/// The four last segments of an IIIF Image API 3.0 image request, `{region}/{size}/{rotation}/{quality}.{format}`,
/// read on their bytes and nothing more: what they come to for one image is `IIIFRequest`'s. The one reading of
/// them, which the routes (their decoded captures) and the fast tile path (the target's bytes in place) share.
/// Whole numbers are `TileURL.number`'s (the spec's regions and sizes are integers), percentages and degrees
/// `TileURL.decimal`'s.
struct IIIFParameters: Equatable {
    enum Region: Equatable {
        case full, square
        case pixels(x: Int, y: Int, width: Int, height: Int)
        case percent(x: Double, y: Double, width: Double, height: Double)
    }

    enum Size: Equatable {
        case max
        case percent(Double)
        /// `w,`: the height follows the region's shape.
        case width(Int)
        /// `,h`: the width follows the region's shape.
        case height(Int)
        /// `w,h`.
        case exact(width: Int, height: Int)
        /// `!w,h`: the largest that fits.
        case fit(width: Int, height: Int)
    }

    enum Quality: String { case `default`, color, gray, bitonal }

    var region: Region
    var size: Size
    /// `^`: the size may exceed the region.
    var upscale: Bool
    var mirror: Bool
    /// Clockwise quarter turns, 0 to 3.
    var quarterTurns: Int
    var quality: Quality
    var format: ImageFormat

    init(region: UnsafeRawBufferPointer, size: UnsafeRawBufferPointer, rotation: UnsafeRawBufferPointer,
         qualityFormat: UnsafeRawBufferPointer) throws(APIError) {
        self.region = try Self.region(region)
        (self.size, upscale) = try Self.size(size)
        (mirror, quarterTurns) = try Self.rotation(rotation)
        (quality, format) = try Self.qualityFormat(qualityFormat)
    }

    /// Whether the output is a plain crop-and-scale: no mirror, no turn, colours as they are.
    var isPlain: Bool { !mirror && quarterTurns == 0 && (quality == .default || quality == .color) }

    private static func region(_ text: UnsafeRawBufferPointer) throws(APIError) -> Region {
        if text.elementsEqual("full".utf8) { return .full }
        if text.elementsEqual("square".utf8) { return .square }
        if text.starts(with: "pct:".utf8) {
            guard let v = list(text, from: 4, count: 4, TileURL.decimal), v[2] > 0, v[3] > 0 else {
                throw .badRequest("region pct:x,y,w,h needs four non-negative numbers with w and h above 0")
            }
            return .percent(x: v[0], y: v[1], width: v[2], height: v[3])
        }
        guard let v = list(text, from: 0, count: 4, TileURL.number), v[2] > 0, v[3] > 0 else {
            throw .badRequest("region must be full, square, x,y,w,h (whole numbers, w and h above 0) or pct:x,y,w,h")
        }
        return .pixels(x: v[0], y: v[1], width: v[2], height: v[3])
    }

    private static func size(_ whole: UnsafeRawBufferPointer) throws(APIError) -> (Size, Bool) {
        let up = whole.first == UInt8(ascii: "^")
        let text = UnsafeRawBufferPointer(rebasing: whole[(up ? 1 : 0)...])
        if text.elementsEqual("max".utf8) { return (.max, up) }
        if text.starts(with: "pct:".utf8) {
            guard let v = list(text, from: 4, count: 1, TileURL.decimal), v[0] > 0 else { throw .badRequest("size pct:n needs a number above 0") }
            return (.percent(v[0]), up)
        }
        if text.first == UInt8(ascii: "!") {
            guard let v = list(text, from: 1, count: 2, TileURL.number), v[0] >= 1, v[1] >= 1 else {
                throw .badRequest("size !w,h needs two whole numbers above 0")
            }
            return (.fit(width: v[0], height: v[1]), up)
        }
        guard let comma = text.firstIndex(of: UInt8(ascii: ",")) else {
            throw .badRequest("size must be max, w,, ,h, pct:n, w,h or !w,h, optionally after ^")
        }
        let w = UnsafeRawBufferPointer(rebasing: text[..<comma]), h = UnsafeRawBufferPointer(rebasing: text[(comma + 1)...])
        switch (TileURL.number(w), TileURL.number(h)) {
        case let (width?, nil) where h.isEmpty && width >= 1: return (.width(width), up)
        case let (nil, height?) where w.isEmpty && height >= 1: return (.height(height), up)
        case let (width?, height?) where width >= 1 && height >= 1: return (.exact(width: width, height: height), up)
        default: throw .badRequest("size must be max, w,, ,h, pct:n, w,h or !w,h (whole numbers above 0), optionally after ^")
        }
    }

    private static func rotation(_ text: UnsafeRawBufferPointer) throws(APIError) -> (Bool, Int) {
        let mirror = text.first == UInt8(ascii: "!")
        guard let degrees = TileURL.decimal(UnsafeRawBufferPointer(rebasing: text[(mirror ? 1 : 0)...])), degrees <= 360 else {
            throw .badRequest("rotation must be 0, 90, 180 or 270, optionally after ! to mirror")
        }
        guard degrees.truncatingRemainder(dividingBy: 90) == 0 else {
            throw .notImplemented("rotation by \(degrees)° is not supported; use a multiple of 90")
        }
        return (mirror, Int(degrees / 90) % 4)
    }

    private static func qualityFormat(_ text: UnsafeRawBufferPointer) throws(APIError) -> (Quality, ImageFormat) {
        guard let dot = text.lastIndex(of: UInt8(ascii: ".")),
              let quality = Quality(rawValue: String(decoding: text[..<dot], as: UTF8.self)) else {
            throw .badRequest("quality must be default, color, gray or bitonal, followed by .jpg, .png, .webp or .avif")
        }
        let suffix = text[(dot + 1)...]
        // IIIF's format names are the usual extensions, lower case: `jpeg` and `JPG` are not among them.
        let named = UnsafeRawBufferPointer(rebasing: suffix)
        if let format = ImageFormat(extensionBytes: named), named.elementsEqual(format.fileExtension.utf8) {
            return (quality, format)
        }
        for other in ["tif", "gif", "jp2", "pdf"] where suffix.elementsEqual(other.utf8) {
            throw .notImplemented("format \(other) is not supported; use jpg, png, webp or avif")
        }
        throw .badRequest("format must be jpg, png, webp or avif")
    }

    /// `count` comma-separated values from byte `from` on, each read by `read`, or nil.
    private static func list<T>(_ text: UnsafeRawBufferPointer, from: Int, count: Int,
                                _ read: (UnsafeRawBufferPointer) -> T?) -> InlineArray<4, T>? where T: BitwiseCopyable {
        guard count <= 4, from <= text.count else { return nil }
        var values = InlineArray<4, T?>(repeating: nil)
        var found = 0, start = from
        for i in from ... text.count where i == text.count || text[i] == UInt8(ascii: ",") {
            guard found < count, let value = read(UnsafeRawBufferPointer(rebasing: text[start ..< i])) else { return nil }
            values[found] = value
            found += 1
            start = i + 1
        }
        guard found == count else { return nil }
        var out = InlineArray<4, T>(repeating: values[0]!)
        for k in 0 ..< count { out[k] = values[k]! }
        return out
    }
}
