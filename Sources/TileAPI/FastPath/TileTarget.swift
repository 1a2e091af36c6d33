import POSIXSupport
import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// A tile URL recognised on its bytes, as the fast path reads it: `/images/{id}/tiles/{z}/{x}/{y}[.ext]`,
/// `/images/{id}_files/{z}/{x}_{y}[.ext]` and `/tiles/{z}/{x}/{y}[.ext]`, with no query or only `?v={version}`,
/// and IIIF image requests `/iiif/3/{id}[@{version}]/{x},{y},{w},{h}/{w},[{h}]/0/{default|color}.{ext}` (the
/// region and size a viewer derives from `info.json`'s `tiles`; which tile, if any, the image's geometry says).
/// The id may hold encoded slashes (`2024%2Ficeland%2Fglacier`: an image in a folder) and escaped bytes of
/// letters beyond ASCII (`%C3%A9t%C3%A9`: ids keep the file's letters), its only escapes; anything
/// else — another percent-escape, another parameter, a dot segment or an empty or dot part of an id, a number
/// too long — is not recognised, and the request goes the general way (`Routes`), which answers it or says what
/// is wrong. So this never has to be right about an error, only about the requests it takes. Pure, so it is
/// fuzzed alone.
struct TileTarget: Equatable {
    /// The image id's bytes in the target, as sent (slashes may be `%2F`: `decodedID`); nil for `/tiles/…`.
    var id: Range<Int>?
    var tile: TileCoordinate
    /// nil: no extension, the tile format setting.
    var format: ImageFormat?
    /// The `v` parameter's bytes, if given (for IIIF, the `@version` of the identifier).
    var version: Range<Int>?
    /// For an IIIF image request, the region and size it names: a tile only once the image's geometry says so
    /// (`tile` is then a placeholder).
    var iiif: IIIFTile?

    /// `{x},{y},{w},{h}/{w},[{h}]` of an IIIF image request with rotation 0 and quality default or color.
    struct IIIFTile: Equatable {
        var x: Int, y: Int, width: Int, height: Int
        var outWidth: Int
        /// nil: `w,` (the height follows from the region's shape, as the routes round it).
        var outHeight: Int?

        /// The pyramid tile it names in `geometry`, as `IIIFHandler` finds it, or nil.
        func tile(in geometry: PyramidGeometry) -> TileCoordinate? {
            guard x < geometry.width, y < geometry.height else { return nil }
            let region = PixelRect(x: x, y: y, width: min(width, geometry.width - x), height: min(height, geometry.height - y))
            let height = outHeight ?? max(1, Int((Double(region.height) * Double(outWidth) / Double(region.width)).rounded()))
            guard outWidth <= region.width, height <= region.height else { return nil }
            return geometry.tile(exactly: region, outWidth: outWidth, outHeight: height, slack: outHeight == nil ? 1 : 0)
        }
    }

    init?(_ target: UnsafeRawBufferPointer) {
        guard target.first == UInt8(ascii: "/") else { return nil }
        var end = target.count
        if let question = target.firstIndex(of: UInt8(ascii: "?")) {
            end = question
            let value = question + 3
            guard value <= target.count, target[question + 1] == UInt8(ascii: "v"), target[question + 2] == UInt8(ascii: "="),
                  !target[value...].contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") })
            else { return nil }
            version = value ..< target.count
        }
        // Printable ASCII only (what the parser lets through anyway), and no escape but `%2F` and `%80`–`%FF` (in
        // the id, checked below): the others are the routes' to decode.
        guard !target.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return nil }
        var escapes = 0
        for i in 0 ..< end where target[i] == UInt8(ascii: "%") {
            guard Self.isSlash(target, at: i, end: end) || Self.isHighByte(target, at: i, end: end) else { return nil }
            escapes += 1
        }
        // Up to seven segments after the leading slash.
        var segments = InlineArray<7, Range<Int>>(repeating: 0 ..< 0)
        var count = 0
        var start = 1
        while true {
            guard count < 7 else { return nil }
            var stop = start
            while stop < end && target[stop] != UInt8(ascii: "/") { stop += 1 }
            segments[count] = start ..< stop
            count += 1
            guard stop < end else { break }
            start = stop + 1
        }
        func named(_ k: Int, _ text: StaticString) -> Bool { HTTPParser.equals(target, segments[k], text) }
        let parsed: (TileCoordinate, ImageFormat?)?
        switch count {
        case 4 where named(0, "tiles"):
            parsed = Self.address(target, z: segments[1], x: segments[2], y: segments[3])
        case 6 where named(0, "images") && named(2, "tiles"):
            id = segments[1]
            parsed = Self.address(target, z: segments[3], x: segments[4], y: segments[5])
        case 4 where named(0, "images"):
            let files = segments[1], suffix = "_files".utf8.count
            guard files.count > suffix, HTTPParser.equals(target, files.upperBound - suffix ..< files.upperBound, "_files"),
                  let underscore = target[segments[3]].firstIndex(of: UInt8(ascii: "_")) else { return nil }
            id = files.lowerBound ..< files.upperBound - suffix
            parsed = Self.address(target, z: segments[2], x: segments[3].lowerBound ..< underscore, y: underscore + 1 ..< segments[3].upperBound)
        case 7 where named(0, "iiif") && named(1, "3") && version == nil:
            // `/iiif/3/{id}[@{version}]/{region}/{size}/0/{default|color}.{ext}`: no query.
            var idBytes = segments[2]
            if let at = target[idBytes].lastIndex(of: UInt8(ascii: "@")) {
                guard at + 1 < idBytes.upperBound else { return nil }
                version = at + 1 ..< idBytes.upperBound
                idBytes = idBytes.lowerBound ..< at
            }
            id = idBytes
            guard let request = Self.iiif(target, region: segments[3], size: segments[4]), named(5, "0"),
                  let format = Self.qualityFormat(target, segments[6]) else { return nil }
            iiif = request
            parsed = (TileCoordinate(level: 0, x: 0, y: 0), format)
        default:
            return nil
        }
        if let id {
            guard Self.partsAreNames(target, id) else { return nil }
            if escapes > 0, target[..<id.lowerBound].contains(UInt8(ascii: "%")) || target[id.upperBound ..< end].contains(UInt8(ascii: "%")) {
                return nil
            }
        } else if escapes > 0 {
            return nil
        }
        guard let (tile, format) = parsed else { return nil }
        self.tile = tile
        self.format = format
    }

    /// Whether `%2F` (or `%2f`) starts at `i`.
    static func isSlash(_ bytes: UnsafeRawBufferPointer, at i: Int, end: Int) -> Bool {
        i + 2 < end && bytes[i + 1] == UInt8(ascii: "2") && (bytes[i + 2] == UInt8(ascii: "F") || bytes[i + 2] == UInt8(ascii: "f"))
    }

    /// Whether `%80` to `%FF` (a byte of a letter beyond ASCII, either case) starts at `i`.
    static func isHighByte(_ bytes: UnsafeRawBufferPointer, at i: Int, end: Int) -> Bool {
        guard i + 2 < end, let high = PathText.hexDigit(bytes[i + 1]), PathText.hexDigit(bytes[i + 2]) != nil else { return false }
        return high >= 8
    }

    /// Whether every part of the id between its encoded slashes is a name: not empty, `.` or `..` (what the
    /// routes refuse).
    static func partsAreNames(_ bytes: UnsafeRawBufferPointer, _ id: Range<Int>) -> Bool {
        var start = id.lowerBound, i = id.lowerBound
        while true {
            let atEnd = i == id.upperBound
            if atEnd || (bytes[i] == UInt8(ascii: "%") && isSlash(bytes, at: i, end: id.upperBound)) {
                let part = start ..< i
                if part.isEmpty || HTTPParser.equals(bytes, part, ".") || HTTPParser.equals(bytes, part, "..") { return false }
                if atEnd { return true }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
    }

    /// `{z}`, `{x}` and `{y}[.ext]` as `TilePath.parse` reads them, or nil for anything it would refuse.
    private static func address(_ bytes: UnsafeRawBufferPointer, z: Range<Int>, x: Range<Int>, y: Range<Int>) -> (TileCoordinate, ImageFormat?)? {
        var row = y
        var format: ImageFormat?
        if let dot = bytes[y].lastIndex(of: UInt8(ascii: ".")) {
            let suffix = dot + 1 ..< y.upperBound
            if HTTPParser.equalsFolded(bytes, suffix, "jpg") || HTTPParser.equalsFolded(bytes, suffix, "jpeg") { format = .jpeg }
            else if HTTPParser.equalsFolded(bytes, suffix, "png") { format = .png }
            else if HTTPParser.equalsFolded(bytes, suffix, "webp") { format = .webp }
            else if HTTPParser.equalsFolded(bytes, suffix, "avif") { format = .avif }
            else { return nil }
            row = y.lowerBound ..< dot
        }
        guard let level = number(bytes, z), let column = number(bytes, x), let line = number(bytes, row) else { return nil }
        return (TileCoordinate(level: level, x: column, y: line), format)
    }

    /// `x,y,w,h` and `w,` or `w,h` (decimals, sizes above 0), or nil for any other region or size form.
    private static func iiif(_ bytes: UnsafeRawBufferPointer, region: Range<Int>, size: Range<Int>) -> IIIFTile? {
        var parts = InlineArray<4, Range<Int>>(repeating: 0 ..< 0)
        var count = 0, start = region.lowerBound
        for i in region where bytes[i] == UInt8(ascii: ",") {
            guard count < 3 else { return nil }
            parts[count] = start ..< i
            count += 1
            start = i + 1
        }
        guard count == 3 else { return nil }
        parts[3] = start ..< region.upperBound
        guard let x = number(bytes, parts[0]), let y = number(bytes, parts[1]), let w = number(bytes, parts[2]),
              let h = number(bytes, parts[3]), w > 0, h > 0,
              let comma = bytes[size].firstIndex(of: UInt8(ascii: ",")),
              let outWidth = number(bytes, size.lowerBound ..< comma), outWidth > 0 else { return nil }
        let rest = comma + 1 ..< size.upperBound
        var outHeight: Int?
        if !rest.isEmpty {
            guard let value = number(bytes, rest), value > 0 else { return nil }
            outHeight = value
        }
        return IIIFTile(x: x, y: y, width: w, height: h, outWidth: outWidth, outHeight: outHeight)
    }

    /// `default.{ext}` or `color.{ext}` with the formats tiles come in (`jpg`, `png`, `webp`, `avif`: IIIF's names, lower case).
    private static func qualityFormat(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> ImageFormat? {
        guard let dot = bytes[range].lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let quality = range.lowerBound ..< dot, suffix = dot + 1 ..< range.upperBound
        guard HTTPParser.equals(bytes, quality, "default") || HTTPParser.equals(bytes, quality, "color") else { return nil }
        if HTTPParser.equals(bytes, suffix, "jpg") { return .jpeg }
        if HTTPParser.equals(bytes, suffix, "png") { return .png }
        if HTTPParser.equals(bytes, suffix, "webp") { return .webp }
        if HTTPParser.equals(bytes, suffix, "avif") { return .avif }
        return nil
    }

    /// A non-negative decimal of 1 to 9 digits.
    private static func number(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 9 else { return nil }
        var n = 0
        for i in range {
            let c = bytes[i]
            guard c >= 48 && c <= 57 else { return nil }
            n = n * 10 + Int(c - 48)
        }
        return n
    }
}
