import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// Escaping for ids placed in URL paths.
enum URLPath {
    static func escape(_ segment: String) -> String {
        var out = ""
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"),
                 UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

extension URLPath {
    /// `query` (raw, as the request had it) with parameter `name` set to `value`, escaped; the rest as it was.
    static func replacing(_ name: String, with value: String, in query: Substring) -> String {
        query.split(separator: "&").map { $0.hasPrefix(name + "=") ? name + "=" + escape(value) : String($0) }.joined(separator: "&")
    }

    /// The IIIF Presentation manifest of image `id`, as a path.
    static func manifest(_ id: String) -> String { "/iiif/manifest/" + escape(id) }

    /// Image `id`'s master file as a download, as a path.
    static func original(_ id: String) -> String { "/images/" + escape(id) + "/original" }

    /// Image `id`'s camera raw (its shot's `.CR2`, `.NEF`…, or the raw it is), as a download.
    static func raw(_ id: String) -> String { "/images/" + escape(id) + "/raw" }

    /// A whole-slide image's associated image `name` ("label", "macro", "thumbnail"), as a JPEG.
    static func associated(_ id: String, _ name: String) -> String { "/images/" + escape(id) + "/associated/" + escape(name) + ".jpg" }

    /// The IIIF Presentation collection of `folder` ("" is the top), as a path.
    static func collection(_ folder: String) -> String { folder.isEmpty ? "/iiif/collection" : "/iiif/collection/" + escape(folder) }
}

extension URLPath {
    /// The XYZ tile URL of image `id` (`/images/{id}/tiles/{z}/{x}/{y}.jpg?v=…`); left out, `z`, `x` and `y`
    /// stay template fields, as `/api/images` hands them to Leaflet.
    static func tiles(_ id: String, z: String = "{z}", x: String = "{x}", y: String = "{y}", version: String,
                      format: ImageFormat = .jpeg) -> String {
        versioned("/images/\(escape(id))/tiles/\(z)/\(x)/\(y).\(format.fileExtension)", version)
    }

    static func tile(_ id: String, _ tile: TileCoordinate, version: String, format: ImageFormat = .jpeg) -> String {
        tiles(id, z: String(tile.level), x: String(tile.x), y: String(tile.y), version: version, format: format)
    }

    /// A tile of image `id`'s public level (`PublicLevel`): its region of the full image at its public size, as
    /// an IIIF Image 3.0 request (`/iiif/3/{id}/x,y,w,h/w,h/0/default.jpg?v=…`).
    static func publicTile(_ id: String, _ tile: PublicLevel.Tile, version: String, format: ImageFormat = .jpeg) -> String {
        let r = tile.region
        return versioned("/iiif/3/\(escape(id))/\(r.x),\(r.y),\(r.width),\(r.height)/\(tile.width),\(tile.height)/0/default.\(format.fileExtension)", version)
    }
}
