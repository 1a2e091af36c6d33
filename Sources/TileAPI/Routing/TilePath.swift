import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// The tile address of `/tiles/…`, `/images/{id}/tiles/…` and DeepZoom tile URLs: pure, so it is fuzzed alone.
enum TilePath {
    /// Parses `{z}/{x}/{y}` with an optional extension on y; `plain` (the tile format setting) when there is none.
    static func parse(z: String, x: String, y: String, plain: ImageFormat = .jpeg) throws(APIError) -> (TileCoordinate, ImageFormat) {
        var row = Substring(y)
        var format = plain
        if let dot = y.lastIndex(of: ".") {
            let suffix = y[y.index(after: dot)...]
            guard let named = ImageFormat(fileExtension: suffix) else {
                throw .badRequest("tile format must be jpg, jpeg, png, webp or avif, not '\(suffix)'")
            }
            format = named
            row = y[..<dot]
        }
        guard let level = number(z), let column = number(x[...]), let line = number(row) else {
            throw .badRequest("tile address must be /{level}/{x}/{y} with non-negative integers, not \(z)/\(x)/\(y)")
        }
        return (TileCoordinate(level: level, x: column, y: line), format)
    }

    /// The format a thumbnail alias's last segment names (`thumbnail`: `plain`; `thumbnail.{ext}`), nil when the
    /// segment is not a thumbnail's.
    static func thumbnail(_ name: String, plain: ImageFormat = .jpeg) throws(APIError) -> ImageFormat? {
        if name == "thumbnail" { return plain }
        guard name.hasPrefix("thumbnail.") else { return nil }
        let suffix = name.dropFirst(10)
        guard let format = ImageFormat(fileExtension: suffix) else {
            throw .badRequest("thumbnail format must be jpg, jpeg, png, webp or avif, not '\(suffix)'")
        }
        return format
    }

    private static func number(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ (48 ... 57).contains($0) }) else { return nil }
        return Int(text)
    }
}
