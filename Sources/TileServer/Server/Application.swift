import Logging
import Pyramid

/// The server's shared state: configuration, the tile service, metrics, the render pool and the routes.
final class Application: Sendable {
    let config: ServerConfiguration
    let tiles: TileService
    let metrics = Metrics()
    let logger: Logger
    let workers: WorkerPool
    let publicRoot: String
    let router: Router
    let accessLog: AccessLog?
    /// Around the routes: metrics and the access log outermost, then CORS, then the method policy.
    private let chain: ResponderChain
    /// The same for answers the transport makes itself (malformed requests, timeouts, refusals): no routing.
    private let transportChain: ResponderChain

    init(config: ServerConfiguration, tiles: TileService, logger: Logger, publicRoot: String) {
        self.config = config
        self.tiles = tiles
        self.logger = logger
        self.publicRoot = publicRoot
        workers = WorkerPool(threads: config.workers, lowPriorityLimit: config.prefetchQueue)
        router = Routes.make()
        let accessLog = config.accessLog ? AccessLog() : nil
        self.accessLog = accessLog
        let observation = ObservationMiddleware(metrics: metrics, accessLog: accessLog)
        chain = ResponderChain(middlewares: [observation, CORSMiddleware(), MethodMiddleware()])
        transportChain = ResponderChain(middlewares: [observation, CORSMiddleware()])
    }

    /// A request through the whole chain: what the event loop calls, and what handler tests call in process.
    func respond(to request: HTTPRequest, notes: RequestNotes) -> HandlerOutcome {
        chain.respond(to: request, notes: notes) { [self] request, notes in router.respond(to: request, notes: notes, app: self) }
    }

    /// A response the transport made (route `notes.route`), observed and given CORS like any other.
    func respond(transport response: HTTPResponse, to request: HTTPRequest, notes: RequestNotes) -> HTTPResponse {
        guard case let .response(observed) = transportChain.respond(to: request, notes: notes, with: { _, _ in .response(response) }) else {
            return response
        }
        return observed
    }

    var defaultImageID: String { tiles.imageIDs[0] }

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
