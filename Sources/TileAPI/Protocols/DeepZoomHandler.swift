import HTTPTransport
import Pyramid
import TileGeometry

/// DeepZoom: `/images/{id}.dzi` and `/images/{id}_files/{L}/{x}_{y}.{jpg|png|webp}`, the same tiles (and cache
/// entries) as `/images/{id}/tiles/{L}/{x}/{y}`.
struct DeepZoomHandler: Sendable {
    let tiles: TileHandler

    func descriptor(_ context: RequestContext) throws -> HandlerOutcome {
        let file = context.capture("file")
        guard TileURL.withBytes(file, { TileURL.descriptorID($0) != nil }) else { throw APIError.notFound("no such file: /images/\(file)") }
        let snapshot = try context.admitted().snapshot(context), g = snapshot.geometry
        // OpenSeadragon appends the descriptor's query to every tile URL, so `?v=` reaches the tiles too.
        let check = try VersionCheck(context, current: snapshot.version)
        var response = HTTPResponse.text(DeepZoomDescriptor.xml(width: g.width, height: g.height, tileSize: g.tileSize, overlap: 0,
                                                                 format: tiles.tiles.options.format),
                                         contentType: "application/xml; charset=utf-8")
        if check == .current { response.headers.append(VersionCheck.immutable) }
        return .response(response)
    }

    func tile(_ context: RequestContext) throws -> HandlerOutcome {
        let files = context.capture("files"), name = context.capture("xy")
        guard TileURL.withBytes(files, { TileURL.deepZoomID($0) != nil }),
              let (x, y) = TileURL.withBytes(name, { bytes in
                  TileURL.deepZoomName(bytes).map { (String(decoding: bytes[$0.x], as: UTF8.self), String(decoding: bytes[$0.y], as: UTF8.self)) }
              }) else {
            throw APIError.notFound("no such file: /images/\(files)/\(context.capture("z"))/\(name)")
        }
        let (tile, format) = try TilePath.parse(z: context.capture("z"), x: x, y: y, plain: tiles.tiles.options.format)
        return try tiles.serve(context, tile: tile, format: format)
    }
}
