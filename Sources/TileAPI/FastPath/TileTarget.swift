import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// A tile URL recognised on its bytes, as the fast path reads it: `/images/{id}/tiles/{z}/{x}/{y}[.ext]`,
/// `/images/{id}_files/{z}/{x}_{y}[.ext]` and `/tiles/{z}/{x}/{y}[.ext]`, with no query or only `?v={version}`.
/// Anything else — a percent-escape, another parameter, a dot segment, a number too long — is not
/// recognised, and the request goes the general way (`Routes`), which answers it or says what is wrong. So
/// this never has to be right about an error, only about the requests it takes. Pure, so it is fuzzed alone.
struct TileTarget: Equatable {
    /// The image id's bytes in the target; nil for `/tiles/…`, the default image.
    var id: Range<Int>?
    var tile: TileCoordinate
    /// nil: no extension, the tile format setting.
    var format: ImageFormat?
    /// The `v` parameter's bytes, if given.
    var version: Range<Int>?

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
        // Printable ASCII only (what the parser lets through anyway) and no escapes: those are the routes' to decode.
        guard !target.contains(where: { $0 <= 0x20 || $0 >= 0x7F }), !target[..<end].contains(UInt8(ascii: "%")) else { return nil }
        // Up to six segments after the leading slash.
        var segments = InlineArray<6, Range<Int>>(repeating: 0 ..< 0)
        var count = 0
        var start = 1
        while true {
            guard count < 6 else { return nil }
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
        default:
            return nil
        }
        if let id, id.isEmpty || HTTPParser.equals(target, id, ".") || HTTPParser.equals(target, id, "..") { return nil }
        guard let (tile, format) = parsed else { return nil }
        self.tile = tile
        self.format = format
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
            else { return nil }
            row = y.lowerBound ..< dot
        }
        guard let level = number(bytes, z), let column = number(bytes, x), let line = number(bytes, row) else { return nil }
        return (TileCoordinate(level: level, x: column, y: line), format)
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
