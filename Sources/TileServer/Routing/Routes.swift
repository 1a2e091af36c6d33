/// The route table: one line per endpoint, each pointing at a small handler. `*id` and `*path` are the segments
/// that may hold encoded slashes (`2024%2Ficeland%2Fglacier`).
enum Routes {
    static func make() -> Router {
        Router(routes: [
            Route(name: "healthz", pattern: ["healthz"], handler: OperationsHandler.health),
            Route(name: "metrics", pattern: ["metrics"], handler: OperationsHandler.metrics),
            Route(name: "api_images", pattern: ["api", "images"], handler: ImageAPIHandler.list),
            Route(name: "api_image", pattern: ["api", "images", "*id"], handler: ImageAPIHandler.one),
            Route(name: "viewport", pattern: ["api", "images", "*id", "viewport"], handler: ViewportHandler.viewport),
            Route(name: "zoomrect", pattern: ["api", "images", "*id", "zoomrect"], handler: ViewportHandler.zoomRect),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.jpg"], handler: ViewImageHandler.jpeg),
            Route(name: "viewport_image", pattern: ["api", "images", "*id", "viewport.png"], handler: ViewImageHandler.png),
            Route(name: "tile", pattern: ["tiles", ":z", ":x", ":y"], handler: TileHandler.defaultImage),
            Route(name: "tile", pattern: ["images", "*id", "tiles", ":z", ":x", ":y"], handler: TileHandler.anyImage),
            Route(name: "dzi", pattern: ["images", "*file"], handler: DeepZoomHandler.descriptor),
            Route(name: "tile", pattern: ["images", "*files", ":z", ":xy"], handler: DeepZoomHandler.tile),
            Route(name: "iiif_manifest", pattern: ["iiif", "manifest", "*id"], handler: PresentationHandler.manifest),
            Route(name: "iiif_collection", pattern: ["iiif", "collection"], handler: PresentationHandler.collection),
            Route(name: "iiif_collection", pattern: ["iiif", "collection", "*path"], handler: PresentationHandler.collection),
            Route(name: "iiif_redirect", pattern: ["iiif", "3", "*id"], handler: IIIFHandler.redirect),
            Route(name: "iiif_info", pattern: ["iiif", "3", "*id", "info.json"], handler: IIIFHandler.info),
            Route(name: "iiif_image", pattern: ["iiif", "3", "*id", ":region", ":size", ":rotation", ":qf"], handler: IIIFHandler.image),
        ], fallback: Route(name: "static", pattern: [], handler: StaticFileHandler.serve))
    }
}
