import HTTPTransport
import Pyramid
import ImageCodecs
import TileGeometry

/// Asks for tiles in the background at low priority on the render pool; dropped (and counted) when it is busy.
struct Prefetcher: Sendable {
    let tiles: TileService
    let pool: WorkerPool
    let metrics: Metrics

    init(_ services: Services) {
        tiles = services.tiles
        pool = services.pools.render
        metrics = services.metrics
    }

    /// Makes `wanted` of `image` in `format`, the one the viewer asked its tile URLs in.
    func callAsFunction(image: String, tiles wanted: [TileCoordinate], format: ImageFormat) {
        for tile in wanted {
            let accepted = pool.submitLowPriority { [tiles] in
                _ = try? tiles.tile(image: image, tile: tile, format: format)
            }
            if !accepted { metrics.prefetchDropped() }
        }
    }
}
