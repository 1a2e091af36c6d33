import HTTPTransport
import ObjectStorage
import Logging
import Library
import Pyramid

/// The server's parts, built once: the tile service, metrics, pools, the access log and the responder chain
/// with the routes at its centre. It is what the transport calls (`HTTPResponder`); the handlers behind the
/// routes get only the services they use.
package final class Application: HTTPResponder {
    package let pools: WorkerPools
    /// Open connections, counted by the transport, shown by `/metrics`.
    package let connections = ConnectionGauge()
    package let accessLog: AccessLog?
    let metrics = Metrics()
    private let logger: Logger
    private let tiles: TileService
    private let library: ImageLibrary
    private let access: AccessControl?
    /// `Cache-Control` of tiles whose URL names no version, for the fast path.
    private let tileCacheControl: HTTPHeader
    /// The route table at the centre of the chain.
    let router: Router
    /// The routes inside the chain: metrics and the access log outermost, then CORS, then the method policy.
    private let responder: Responder<RequestNotes>
    /// The same chain, less routing and method policy, for answers the transport makes itself.
    private let transportChain: ResponderChain<RequestNotes>

    /// The server over `library`'s images, whose tiles `tiles` makes (a service made with `library` as its
    /// directory); `objects`, the object store `s3://` masters are in, when there is one.
    package init(options: APIOptions, tiles: TileService, library: ImageLibrary, logger: Logger, viewer: ViewerFiles,
                access: AccessControl? = nil, objects: RemoteObjects? = nil) {
        self.logger = logger
        self.tiles = tiles
        self.library = library
        library.onBroken { id, error in logger.warning("image \(id) cannot be shown: \(error.description)") }
        pools = WorkerPools(renderThreads: options.workers, ioThreads: options.ioWorkers, lowPriorityLimit: options.prefetchQueue)
        let accessLog = options.accessLog ? AccessLog() : nil
        self.accessLog = accessLog
        let observation = ObservationMiddleware(metrics: metrics, accessLog: accessLog)
        transportChain = ResponderChain([observation, CORSMiddleware()])
        let services = Services(options: options, tiles: tiles, library: library, metrics: metrics, pools: pools, connections: connections, viewer: viewer,
                                access: access, objects: objects)
        tileCacheControl = services.tileCacheControl
        var routes = Routes.make(services)
        routes.control = access
        routes.publicURL = options.publicURL
        let router = routes
        self.access = access
        self.router = router
        responder = ResponderChain([observation, CORSMiddleware(), MethodMiddleware()])
            .compose { request, notes in router.respond(to: request, notes: notes) }
    }

    /// A request through the whole chain: what the event loop calls, and what handler tests call in process.
    func respond(to request: HTTPRequest, notes: RequestNotes) -> HandlerOutcome {
        responder(request, notes)
    }

    package func respond(to request: HTTPRequest, started: Double) -> HandlerOutcome {
        responder(request, RequestNotes(started: started))
    }

    /// The transport's own answer, observed and given CORS like any other (route `refused` or `invalid`).
    package func respond(to failure: TransportFailure, started: Double) -> HTTPResponse {
        let route = if case .tooManyConnections = failure { "refused" } else { "invalid" }
        let request = HTTPRequest(method: "-", target: "-", versionMinor: 1, headers: [], keepAlive: false)
        let answer = HTTPResponse.error(failure.status, failure.description)
        return transportChain.compose(around: { _, _ in .response(answer) })(request, RequestNotes(started: started, route: route)).wait()
    }

    /// Each event loop's answerer of cached tiles from their bytes (`CachedTileResponder`).
    package func makeFastResponder() -> (any FastResponder)? {
        CachedTileResponder(tiles: tiles, metrics: metrics, accessLog: accessLog, cacheControl: tileCacheControl, access: access)
    }

    package func report(_ problem: String) {
        logger.warning("\(problem)")
    }
}
