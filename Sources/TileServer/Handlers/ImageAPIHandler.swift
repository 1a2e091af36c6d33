import Pyramid

/// `/api/images` and `/api/images/{id}`: what images there are and how to address their tiles.
enum ImageAPIHandler {
    static func list(_ context: RequestContext) throws -> HandlerOutcome {
        let images = try context.app.tiles.imageIDs.map { try describe(context.image($0)) }
        return .response(.json(.object([("images", .array(images))])))
    }

    static func one(_ context: RequestContext) throws -> HandlerOutcome {
        .response(.json(try describe(context.image(context.capture("id")))))
    }

    static func describe(_ image: PyramidImage) throws -> JSONValue {
        let snapshot = try image.current()
        let g = snapshot.geometry
        let id = image.id, version = snapshot.version
        return .object([
            ("id", .string(id)),
            ("version", .string(version)),
            ("width", .int(g.width)),
            ("height", .int(g.height)),
            ("tileSize", .int(g.tileSize)),
            ("maxLevel", .int(g.maxLevel)),
            ("format", .string(ImageFormat.jpeg.fileExtension)),
            ("source", .string(snapshot.source.kind)),
            ("tiles", .string(URLPath.versioned("/images/\(URLPath.escape(id))/tiles/{z}/{x}/{y}.jpg", version))),
            ("dzi", .string(URLPath.versioned("/images/\(URLPath.escape(id)).dzi", version))),
            ("iiif", .string("/iiif/3/\(URLPath.escape(id))@\(version)/info.json")),
        ])
    }
}
