import HTTPTransport

/// The route table: one line per endpoint, each pointing at a small handler built with the services it uses, and
/// each saying what it names (`RouteAccess`): `Route` has no default for it. `/auth/probe/{id}` is open: it is
/// the IIIF probe, whose answer is the decision itself (404 alike for hidden and missing).
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
        let auth = AuthHandler(services)
        let download = DownloadHandler(services)
        let associated = AssociatedHandler(services)
        let files = StaticFileHandler(viewer: services.viewer, firstPicture: FirstPicture(tiles: services.tiles, library: services.library,
                                                                                               prefetcher: Prefetcher(services)))
        let id = RouteAccess.image(capture: "id", form: .plain), iiifID = RouteAccess.image(capture: "id", form: .versioned)
        return Router(routes: [
            Route(name: "healthz", pattern: ["healthz"], access: .open, handler: operations.health),
            Route(name: "auth", pattern: ["auth", "login"], lane: .io, access: .open, handler: auth.login),
            Route(name: "auth", pattern: ["auth", "logout"], access: .open, handler: auth.logout),
            Route(name: "auth", pattern: ["auth", "done"], access: .open, handler: auth.done),
            Route(name: "auth", pattern: ["auth", "external"], access: .open, handler: auth.external),
            Route(name: "auth", pattern: ["auth", "token"], access: .open, handler: auth.token),
            Route(name: "auth_probe", pattern: ["auth", "probe", "*id"], lane: .io, access: .open, handler: auth.probe),
            Route(name: "metrics", pattern: ["metrics"], access: .metrics, handler: operations.metrics),
            Route(name: "api_images", pattern: ["api", "images"], lane: .io, access: .listing, handler: api.list),
            Route(name: "api_image", pattern: ["api", "images", "*id"], lane: .io, access: id, handler: api.one),
            Route(name: "viewport", pattern: ["api", "images", "*id", "viewport"], access: id, handler: viewport.viewport),
            Route(name: "zoomrect", pattern: ["api", "images", "*id", "zoomrect"], access: id, handler: viewport.zoomRect),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.jpg"], access: id, handler: viewImage.jpeg),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.png"], access: id, handler: viewImage.png),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.webp"], access: id, handler: viewImage.webp),
            Route(name: "tile", pattern: ["tiles", ":z", ":x", ":y"], access: .defaultImage, handler: tiles.defaultImage),
            Route(name: "tile", pattern: ["images", "*id", "tiles", ":z", ":x", ":y"], access: id, handler: tiles.anyImage),
            Route(name: "dzi", pattern: ["images", "*file"], access: .image(capture: "file", form: .descriptor), handler: deepZoom.descriptor),
            Route(name: "original", pattern: ["images", "*id", "original"], lane: .io, access: id, handler: download.original),
            Route(name: "raw", pattern: ["images", "*id", "raw"], lane: .io, access: id, handler: download.raw),
            Route(name: "associated", pattern: ["images", "*id", "associated", ":name"], lane: .io, access: id, handler: associated.image),
            Route(name: "thumbnail", pattern: ["images", "*id", ":name"], access: id, handler: tiles.thumbnail),
            Route(name: "tile", pattern: ["images", "*files", ":z", ":xy"], access: .image(capture: "files", form: .deepZoomFiles), handler: deepZoom.tile),
            Route(name: "iiif_manifest", pattern: ["iiif", "manifest", "*id"], lane: .io, access: id, handler: presentation.manifest),
            Route(name: "iiif_collection", pattern: ["iiif", "collection"], lane: .io, access: .listing, handler: presentation.collection),
            Route(name: "iiif_collection", pattern: ["iiif", "collection", "*path"], lane: .io, access: .listing, handler: presentation.collection),
            Route(name: "iiif_redirect", pattern: ["iiif", "3", "*id"], access: iiifID, handler: iiif.redirect),
            Route(name: "iiif_info", pattern: ["iiif", "3", "*id", "info.json"], access: iiifID, handler: iiif.info),
            Route(name: "iiif_image", pattern: ["iiif", "3", "*id", ":region", ":size", ":rotation", ":qf"], access: iiifID, handler: iiif.image),
        ], fallback: Route(name: "static", pattern: [], lane: files.readsFiles ? .io : nil, access: .open, handler: files.serve),
                      tiles: services.tiles, library: services.library)
    }
}
