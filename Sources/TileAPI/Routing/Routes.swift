import HTTPTransport

/// The route table: one line per endpoint, each pointing at a small handler built with the services it uses.
/// `*id` and `*path` are the segments that may hold encoded slashes (`2024%2Ficeland%2Fglacier`).
enum Routes {
    static func make(_ services: Services) -> Router {
        let operations = OperationsHandler(services)
        let api = ImageAPIHandler(services)
        let viewport = ViewportHandler(services)
        let viewImage = ViewImageHandler(services)
        let tiles = TileHandler(services)
        let deepZoom = DeepZoomHandler(tiles: tiles)
        let iiif = IIIFHandler(services, tiles: tiles)
        let presentation = PresentationHandler(services)
        let files = StaticFileHandler(viewer: services.viewer, firstPicture: FirstPicture(tiles: services.tiles, library: services.library))
        return Router(routes: [
            Route(name: "healthz", pattern: ["healthz"], handler: operations.health),
            Route(name: "metrics", pattern: ["metrics"], handler: operations.metrics),
            Route(name: "api_images", pattern: ["api", "images"], lane: .io, handler: api.list),
            Route(name: "api_image", pattern: ["api", "images", "*id"], lane: .io, handler: api.one),
            Route(name: "viewport", pattern: ["api", "images", "*id", "viewport"], handler: viewport.viewport),
            Route(name: "zoomrect", pattern: ["api", "images", "*id", "zoomrect"], handler: viewport.zoomRect),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.jpg"], handler: viewImage.jpeg),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.png"], handler: viewImage.png),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.webp"], handler: viewImage.webp),
            Route(name: "tile", pattern: ["tiles", ":z", ":x", ":y"], handler: tiles.defaultImage),
            Route(name: "tile", pattern: ["images", "*id", "tiles", ":z", ":x", ":y"], handler: tiles.anyImage),
            Route(name: "dzi", pattern: ["images", "*file"], handler: deepZoom.descriptor),
            Route(name: "thumbnail", pattern: ["images", "*id", ":name"], handler: tiles.thumbnail),
            Route(name: "tile", pattern: ["images", "*files", ":z", ":xy"], handler: deepZoom.tile),
            Route(name: "iiif_manifest", pattern: ["iiif", "manifest", "*id"], lane: .io, handler: presentation.manifest),
            Route(name: "iiif_collection", pattern: ["iiif", "collection"], lane: .io, handler: presentation.collection),
            Route(name: "iiif_collection", pattern: ["iiif", "collection", "*path"], lane: .io, handler: presentation.collection),
            Route(name: "iiif_redirect", pattern: ["iiif", "3", "*id"], handler: iiif.redirect),
            Route(name: "iiif_info", pattern: ["iiif", "3", "*id", "info.json"], handler: iiif.info),
            Route(name: "iiif_image", pattern: ["iiif", "3", "*id", ":region", ":size", ":rotation", ":qf"], handler: iiif.image),
        ], fallback: Route(name: "static", pattern: [], lane: files.readsFiles ? .io : nil, handler: files.serve))
    }
}
