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

    init(config: ServerConfiguration, tiles: TileService, logger: Logger, publicRoot: String) {
        self.config = config
        self.tiles = tiles
        self.logger = logger
        self.publicRoot = publicRoot
        workers = WorkerPool(threads: config.workers, lowPriorityLimit: config.prefetchQueue)
        router = Routes.make()
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
