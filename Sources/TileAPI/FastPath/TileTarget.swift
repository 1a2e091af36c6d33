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
/// is wrong. So this never has to be right about an error, only about the requests it takes. The segments are
/// read by the routes' own grammar (`TileURL`, `IIIFParameters`); what is this type's is only which targets it
/// takes whole and where their segments lie. Pure, so it is fuzzed alone against the routes.
struct TileTarget: Equatable {
    /// The image id's bytes in the target, as sent (slashes may be `%2F`: `CachedTileReader.decodedID`); nil for `/tiles/…`.
    var id: Range<Int>?
    var tile: TileCoordinate
    /// nil: no extension, the tile format setting.
    var format: ImageFormat?
    /// The `v` parameter's bytes, if given (for IIIF, the `@version` of the identifier).
    var version: Range<Int>?
    /// For an IIIF image request, its parameters: a tile only once the image's geometry says so (`tile` is then a
    /// placeholder).
    var iiif: IIIFParameters?

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
        func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: target[range]) }
        func address(z: Range<Int>, x: Range<Int>, y: Range<Int>) -> (TileCoordinate, ImageFormat?)? {
            try? TileURL.address(z: bytes(z), x: bytes(x), y: bytes(y)).get()
        }
        let parsed: (TileCoordinate, ImageFormat?)?
        switch count {
        case 4 where named(0, "tiles"):
            parsed = address(z: segments[1], x: segments[2], y: segments[3])
        case 6 where named(0, "images") && named(2, "tiles"):
            id = segments[1]
            parsed = address(z: segments[3], x: segments[4], y: segments[5])
        case 4 where named(0, "images"):
            let base = segments[1].lowerBound, name = segments[3].lowerBound
            guard let files = TileURL.deepZoomID(bytes(segments[1])), let (x, y) = TileURL.deepZoomName(bytes(segments[3])) else { return nil }
            id = base + files.lowerBound ..< base + files.upperBound
            parsed = address(z: segments[2], x: name + x.lowerBound ..< name + x.upperBound, y: name + y.lowerBound ..< name + y.upperBound)
        case 7 where named(0, "iiif") && named(1, "3") && version == nil:
            // `/iiif/3/{id}[@{version}]/{region}/{size}/{rotation}/{quality}.{format}`, no query; of its forms, those
            // a tiled viewer sends for a tile: `x,y,w,h` and `w,` or `w,h`, no `^`, no turn or mirror, colours as
            // they are.
            let base = segments[2].lowerBound
            let (idBytes, versionBytes) = TileURL.iiifIdentifier(bytes(segments[2]))
            if let versionBytes {
                guard !versionBytes.isEmpty else { return nil }
                version = base + versionBytes.lowerBound ..< base + versionBytes.upperBound
            }
            id = base + idBytes.lowerBound ..< base + idBytes.upperBound
            guard let request = try? IIIFParameters(region: bytes(segments[3]), size: bytes(segments[4]),
                                                    rotation: bytes(segments[5]), qualityFormat: bytes(segments[6])),
                  request.isPlain, !request.upscale, case .pixels = request.region else { return nil }
            switch request.size {
            case .width, .exact: break
            default: return nil
            }
            iiif = request
            parsed = (TileCoordinate(level: 0, x: 0, y: 0), request.format)
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

    /// The pyramid tile an IIIF request names in `geometry`, as the routes choose it (`IIIFRequest.tile(in:)`), or
    /// nil. Its limits are the image's own at native size: the fast path answers only who may have the whole
    /// image, and takes no size past its region.
    static func tile(_ request: IIIFParameters, in geometry: PyramidGeometry) -> TileCoordinate? {
        let limits = IIIFRequest.limits(width: geometry.width, height: geometry.height, maxZoom: 1)
        return (try? IIIFRequest(request, imageWidth: geometry.width, imageHeight: geometry.height, limits: limits))?.tile(in: geometry)
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
}
