import HTTPTransport
import POSIXSupport
import Pyramid

/// `/images/{id}/original`: the master file itself, its own bytes, type and name, as a download. Sent with
/// `sendfile` from the file as it is now (a file replaced meanwhile is the new one: the ETag says which). Only
/// someone who may see the whole image at full size gets it: for a tiered image it is refused like any picture
/// larger than the public size.
struct DownloadHandler {
    let tiles: TileService

    init(_ services: Services) {
        tiles = services.tiles
    }

    func original(_ context: RequestContext) throws -> HandlerOutcome {
        let id = context.capture("id")
        let image = try context.image(id, in: tiles)
        let snapshot = try image.current()
        try context.access?.allow(width: snapshot.geometry.width, height: snapshot.geometry.height, of: "the original of '\(id)'")
        guard !image.path.isEmpty, snapshot.source.kind != "procedural" else {
            throw APIError.notFound("image '\(id)' is made by the server and has no original file")
        }
        let file: FileDescriptor
        do { file = try FileDescriptor(readingAt: image.path) } catch {
            throw APIError.notFound("the original of '\(id)' is gone: it was moved or removed")
        }
        let size = try file.status().size
        let name = PathText.lastComponent(of: image.path)
        var response = HTTPResponse(contentType: Self.mimeType(ofFile: name), body: [], headers: [
            HTTPHeader(name: "Content-Disposition", value: Self.disposition(name)),
            HTTPHeader(name: "ETag", value: "\"\(snapshot.version)\""),
            HTTPHeader(name: "Cache-Control", value: "no-cache"),
        ])
        response.file = FileBody(descriptor: file, length: Int(size))
        return .response(response.conditional(on: context.request))
    }

    /// The type a file's extension names; `application/octet-stream` for any other.
    static func mimeType(ofFile name: String) -> String {
        let ext = name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
        switch ext {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "tif", "tiff": return "image/tiff"
        case "jp2": return "image/jp2"
        case "j2k", "j2c": return "image/j2k"
        case "webp": return "image/webp"
        default: return "application/octet-stream"
        }
    }

    /// `attachment` with the name twice (RFC 6266): an ASCII fallback (`_` for anything else, quotes and
    /// backslashes too) and the UTF-8 name percent-encoded (RFC 8187), which every current browser uses.
    static func disposition(_ name: String) -> String {
        let fallback = String(name.unicodeScalars.map { s -> Character in
            s.isASCII && s.value >= 0x20 && s.value < 0x7F && s != "\"" && s != "\\" ? Character(s) : "_"
        })
        // RFC 8187's attr-char set holds URLPath.escape's unreserved bytes, so its escaping is valid here.
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(URLPath.escape(name))"
    }
}
