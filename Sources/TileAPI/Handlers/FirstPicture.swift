import HTTPTransport
import Library
import Pyramid
import TileGeometry

/// The viewer's page for an address the server can read, `/?image=ID` at fit or a bare `/`: the image's thumbnail
/// written into the page as an `<img>` with a `data:` URL, so the browser's first frame has the picture with no
/// request after the page's own (an element the parser meets paints in the first frame; one a script makes, often
/// a frame later). Only a thumbnail at hand is written in (in memory, in the store, or a tiled file's own level):
/// the page never waits for a decode pass. Without one, or for any other address, the page is the file as it is
/// and its script asks for the thumbnail itself.
struct FirstPicture: Sendable {
    let tiles: TileService
    let library: ImageLibrary
    /// Where a never-seen photo's first decodes are started as its page goes out (nil: they wait for the viewer).
    var prefetcher: Prefetcher? = nil
    /// The long side, in device pixels, of the screen a first view is guessed to fill: the level that covers it
    /// is decoded as the page goes out.
    static let likelyScreen = 2048
    /// Where the page's first script learns which image the server wrote in (it writes the id over `null`).
    static let idMarker = Array("/*first-picture*/null".utf8)
    /// Where the element goes: the start of the body, before any script there.
    static let elementMarker = Array("<!--first-picture-->".utf8)
    /// Past this a thumbnail (a PNG of a large tile, say) costs the page more than the request it saves.
    static let byteLimit = 64 * 1024

    /// Whether the address may name a picture at fit: `?image=ID` alone (a fragment is never sent, so `#image=`
    /// links are the page script's alone), or no query at all (the top folder's first image, which the viewer
    /// opens on a bare `/`).
    static func wanted(_ context: RequestContext) -> Bool {
        var query = context.path.query
        query["share"] = nil
        return query.isEmpty || (query["image"] != nil && query["zoom"] == nil && query["rotate"] == nil && query["folder"] == nil)
    }

    /// The image the address shows at fit, if `wanted`, as admitted for the identity: a bare `/` shows the first
    /// of the top folder's images in the viewer's default order (by name) whose thumbnail it may see. Walks the top
    /// folder: off the event loop.
    func image(_ context: RequestContext) -> AdmittedImage? {
        var query = context.path.query
        query["share"] = nil
        if query.isEmpty {
            guard let order = try? SearchQuery(q: nil, sort: "name", order: nil),
                  let images = library.search(order, folder: "", admits: { _ in .shown }) else { return nil }
            return images.prefix(context.access == nil ? 1 : 50).lazy.compactMap { shown($0.id, context) }.first
        }
        guard Self.wanted(context), let named = query["image"], !named.isEmpty else { return nil }
        return shown(named, context)
    }

    /// Image `id` admitted, when the identity may see its thumbnail (one tile).
    private func shown(_ id: String, _ context: RequestContext) -> AdmittedImage? {
        guard let image = Admission.image(id, context.access, tiles: tiles), let snapshot = try? image.current(),
              image.limit.permits(level: snapshot.geometry.thumbnailLevel, of: snapshot.geometry) else { return nil }
        return image
    }

    /// `page` with the thumbnail of `image` written in, and an entity tag naming both; nil when there is no
    /// thumbnail at hand or the page has no place for it. Reads files: off the event loop.
    func page(_ page: [UInt8], etag: String, image: AdmittedImage) -> (bytes: [UInt8], etag: String)? {
        guard let snapshot = try? image.current() else { return nil }
        let id = image.id
        let tile = TileCoordinate(level: snapshot.geometry.thumbnailLevel, x: 0, y: 0)
        let thumbnail: EncodedTile?
        switch try? image.lookup(snapshot, tile: tile, format: tiles.options.format, countingMiss: false) {
        case let .hit(hit): thumbnail = hit
        case let .miss(miss): thumbnail = tiles.atHand(miss)
        case nil: thumbnail = nil
        }
        // A never-seen photo: its thumbnail, then the level a fitted view on a likely screen needs, are decoded from
        // now, not once the page has asked for the thumbnail and then the viewer for its view.
        if thumbnail == nil, let prefetcher {
            image.prefetch(Self.firstTiles(snapshot.geometry), format: tiles.options.format, with: prefetcher, inOrder: true)
        }
        guard let thumbnail, thumbnail.bytes.count <= Self.byteLimit,
              let idAt = page.firstRange(of: Self.idMarker)?.lowerBound,
              let elementAt = page.firstRange(of: Self.elementMarker)?.lowerBound,
              idAt < elementAt else { return nil }
        let element = "<img id=\"first-picture\" alt=\"\" elementtiming=\"thumbnail\" data-image=\"\(Self.attribute(id))\" "
            + "src=\"data:\(thumbnail.format.mimeType);base64,\(Base64.encode(thumbnail.bytes, .standard))\">"
        var bytes = Array(page[..<idAt])
        bytes += Array(Self.scriptString(id).utf8)
        bytes += page[(idAt + Self.idMarker.count) ..< elementAt]
        bytes += Array(element.utf8)
        bytes += page[(elementAt + Self.elementMarker.count)...]
        return (bytes, "\"\(etag.filter { $0 != "\"" })-\(thumbnail.etag.filter { $0 != "\"" })\"")
    }

    /// The thumbnail, and a tile of the smallest level covering `likelyScreen` (the whole image where it is
    /// smaller): the decodes a first view waits for.
    static func firstTiles(_ g: PyramidGeometry) -> [TileCoordinate] {
        var level = g.thumbnailLevel
        while level < g.maxLevel, max(g.levelSize(level).width, g.levelSize(level).height) < likelyScreen { level += 1 }
        return [TileCoordinate(level: g.thumbnailLevel, x: 0, y: 0), TileCoordinate(level: level, x: 0, y: 0)]
    }

    /// `text` for an HTML attribute (either quote) or element text.
    static func attribute(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `text` as a JavaScript string literal that is safe inside a `<script>` element: everything but letters,
    /// digits and a few plain marks written as `\uXXXX`, so no `</script>`, quote or line break can end it.
    static func scriptString(_ text: String) -> String {
        var out = "'"
        for unit in text.utf16 {
            switch unit {
            case 0x30 ... 0x39, 0x41 ... 0x5A, 0x61 ... 0x7A, 0x20, 0x2D, 0x2E, 0x5F, 0x2C, 0x28, 0x29:
                out.unicodeScalars.append(Unicode.Scalar(unit)!)
            default:
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "'"
    }
}
