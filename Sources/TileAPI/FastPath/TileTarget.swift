import POSIXSupport
import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// A tile URL recognised on its bytes, as the fast path reads it: `/images/{id}/tiles/{z}/{x}/{y}[.ext]`,
/// `/images/{id}_files/{z}/{x}_{y}[.ext]` and `/tiles/{z}/{x}/{y}[.ext]`, with no query or only `?v={version}`.
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
        // Printable ASCII only (what the parser lets through anyway), and no escape but `%2F` and `%80`–`%FF` (in
        // the id, checked below): the others are the routes' to decode.
        guard !target.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return nil }
        var escapes = 0
        for i in 0 ..< end where target[i] == UInt8(ascii: "%") {
            guard Self.isSlash(target, at: i, end: end) || Self.isHighByte(target, at: i, end: end) else { return nil }
            escapes += 1
        }
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
