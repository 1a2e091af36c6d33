import Logging
import Pyramid

/// The server's shared state: configuration, the tile service, metrics, the render pool and the routes.
final class Application: Sendable {
    let config: ServerConfiguration
    let tiles: TileService
    let metrics = Metrics()
    let logger: Logger
    let workers: WorkerPool
    let viewer: ViewerFiles
    let router: Router
    let accessLog: AccessLog?
    /// `Cache-Control` of tiles, formatted once.
    let tileCacheControl: HTTPHeader
    /// The routes inside the chain: metrics and the access log outermost, then CORS, then the method policy.
    /// Set once at the end of `init` (it needs `self`), read only afterwards.
    private nonisolated(unsafe) var responder: Responder = { _, _ in .response(.error(.serviceUnavailable, "starting")) }
    /// The same chain, less routing and method policy, for answers the transport makes itself.
    private let transportChain: ResponderChain

    init(config: ServerConfiguration, tiles: TileService, logger: Logger, viewer: ViewerFiles) {
        self.config = config
        self.tiles = tiles
        self.logger = logger
        self.viewer = viewer
        workers = WorkerPool(threads: config.workers, lowPriorityLimit: config.prefetchQueue)
        router = Routes.make()
        let accessLog = config.accessLog ? AccessLog() : nil
        self.accessLog = accessLog
        let observation = ObservationMiddleware(metrics: metrics, accessLog: accessLog)
        tileCacheControl = HTTPHeader(name: "Cache-Control", value: "public, max-age=\(config.tileMaxAge)")
        transportChain = ResponderChain(middlewares: [observation, CORSMiddleware()])
        let router = router
        responder = ResponderChain(middlewares: [observation, CORSMiddleware(), MethodMiddleware()])
            .compose { [unowned self] request, notes in router.respond(to: request, notes: notes, app: self) }
    }

    /// A request through the whole chain: what the event loop calls, and what handler tests call in process.
    func respond(to request: HTTPRequest, notes: RequestNotes) -> HandlerOutcome {
        responder(request, notes)
    }

    /// A response the transport made (route `notes.route`), observed and given CORS like any other.
    func respond(transport response: HTTPResponse, to request: HTTPRequest, notes: RequestNotes) -> HTTPResponse {
        guard case let .response(observed) = transportChain.compose(around: { _, _ in .response(response) })(request, notes) else {
            return response
        }
        return observed
    }

    /// The first image in library order: what `/tiles/{z}/{x}/{y}` serves.
    func defaultImageID() throws(APIError) -> String {
        guard let first = tiles.library.firstID else { throw .notFound("no images are being served") }
        return first
    }

    /// Asks for tiles in the background at low priority; dropped when the pool is busy.
    func prefetch(image: String, tiles wanted: [TileCoordinate]) {
        for tile in wanted {
            let accepted = workers.submitLowPriority { [tiles] in
                _ = try? tiles.tile(image: image, tile: tile, format: .jpeg)
            }
            if !accepted { metrics.prefetchDropped() }
        }
    }
}
