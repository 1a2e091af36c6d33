import HTTPTransport
import Pyramid

/// Runs jobs in the background at low priority on the render pool; dropped (and counted) when it is busy. What a
/// job makes is an admitted image's (`AdmittedImage.prefetch`), so nothing past its viewer's limit is made.
struct Prefetcher: Sendable {
    let pool: WorkerPool
    let metrics: Metrics

    init(_ services: Services) {
        pool = services.pools.render
        metrics = services.metrics
    }

    /// Submits `job(0)` … `job(count - 1)`, each on its own.
    func submit(count: Int, _ job: @escaping @Sendable (Int) -> Void) {
        for index in 0 ..< count {
            if !pool.submitLowPriority({ job(index) }) { metrics.prefetchDropped() }
        }
    }
}
