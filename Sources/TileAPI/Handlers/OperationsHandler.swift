import HTTPTransport
import ImageCodecs
import ObjectStorage
import Pyramid

/// `/healthz` and `/metrics`.
struct OperationsHandler: Sendable {
    let metrics: Metrics
    let tiles: TileService
    let connections: ConnectionGauge
    let access: AccessControl?
    let objects: RemoteObjects?

    init(_ services: Services) {
        metrics = services.metrics
        tiles = services.tiles
        connections = services.connections
        access = services.access
        objects = services.objects
    }

    /// "ok", or "degraded: …" naming the dependency that fails (object storage): still 200, since cached and
    /// local tiles are served meanwhile, so a probe does not take a replica out for an outage of what all share.
    func health(_ context: RequestContext) throws -> HandlerOutcome {
        if let reason = objects?.client.health.degradedReason {
            return .response(.text("degraded: object storage unavailable (\(reason))\n"))
        }
        return .response(.text("ok\n"))
    }

    func metrics(_ context: RequestContext) throws -> HandlerOutcome {
        .response(.text(metrics.render(tiles.statistics(), openConnections: connections.open) + (access?.refusals.text ?? "")
                            + objectStorageMetrics, contentType: "text/plain; version=0.0.4; charset=utf-8"))
    }

    /// Requests to object storage by method, bytes received and failures, when it is configured.
    private var objectStorageMetrics: String {
        guard let health = objects?.client.health else { return "" }
        let traffic = health.traffic
        var out = "# HELP tileserver_object_requests_total Requests sent to object storage, retries included, by method.\n# TYPE tileserver_object_requests_total counter\n"
        for (method, count) in traffic.requests.sorted(by: { $0.key < $1.key }) {
            out += "tileserver_object_requests_total{method=\"\(method)\"} \(count)\n"
        }
        out += "# HELP tileserver_object_bytes_received_total Body bytes received from object storage.\n# TYPE tileserver_object_bytes_received_total counter\n"
        out += "tileserver_object_bytes_received_total \(traffic.bytesReceived)\n"
        out += "# HELP tileserver_object_failures_total Requests to object storage that failed after every retry.\n# TYPE tileserver_object_failures_total counter\n"
        out += "tileserver_object_failures_total \(health.failures)\n"
        out += "# HELP tileserver_object_storage_degraded 1 while the last request to object storage failed after every retry.\n# TYPE tileserver_object_storage_degraded gauge\n"
        out += "tileserver_object_storage_degraded \(health.degradedReason == nil ? 0 : 1)\n"
        let blocks = ImageInput.objectBlocks
        out += "# HELP tileserver_object_cache_bytes Blocks of masters in object storage held in memory (--object-cache-mb).\n# TYPE tileserver_object_cache_bytes gauge\n"
        out += "tileserver_object_cache_bytes \(blocks.cache.bytes)\n"
        out += "# HELP tileserver_object_cache_budget_bytes What they may hold.\n# TYPE tileserver_object_cache_budget_bytes gauge\n"
        out += "tileserver_object_cache_budget_bytes \(blocks.cache.budget)\n"
        out += "# HELP tileserver_object_prefetches_total GETs made ahead of viewers and for a master's directories.\n# TYPE tileserver_object_prefetches_total counter\n"
        out += "tileserver_object_prefetches_total \(blocks.prefetches)\n"
        out += "# HELP tileserver_object_reads_ahead_total Of those, GETs ahead of viewers (--object-prefetch, a store far away).\n# TYPE tileserver_object_reads_ahead_total counter\n"
        out += "tileserver_object_reads_ahead_total \(blocks.readsAhead)\n"
        out += "# HELP tileserver_object_get_floor_seconds Of the last 32 GETs a read waited for, one-block GETs made ahead and the shared tile store's listing at start, the quickest but an eighth: the store's distance (reads ahead are made from 0.008; -1 before 4 GETs).\n# TYPE tileserver_object_get_floor_seconds gauge\n"
        out += "tileserver_object_get_floor_seconds \(blocks.floor ?? -1)\n"
        return out
    }
}
