import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// The tile address of `/tiles/…`, `/images/{id}/tiles/…` and DeepZoom tile URLs as the routes read them: their
/// decoded segments through `TileURL`, the grammar the fast path reads too, with the refusal put in words.
enum TilePath {
    /// Parses `{z}/{x}/{y}` with an optional extension on y; `plain` (the tile format setting) when there is none.
    static func parse(z: String, x: String, y: String, plain: ImageFormat = .jpeg) throws(APIError) -> (TileCoordinate, ImageFormat) {
        let parsed = TileURL.withBytes(z) { z in
            TileURL.withBytes(x) { x in
                TileURL.withBytes(y) { yBytes in
                    TileURL.address(z: z, x: x, y: yBytes).mapError { refusal -> APIError in
                        switch refusal {
                        case let .format(suffix):
                            .badRequest("tile format must be jpg, jpeg, png, webp or avif, not '\(String(decoding: yBytes[suffix], as: UTF8.self))'")
                        case .numbers:
                            .badRequest("tile address must be /{level}/{x}/{y} with non-negative integers, not \(z.string)/\(x.string)/\(yBytes.string)")
                        }
                    }
                }
            }
        }
        let (tile, format) = try parsed.get()
        return (tile, format ?? plain)
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
}

private extension UnsafeRawBufferPointer {
    var string: String { String(decoding: self, as: UTF8.self) }
}
