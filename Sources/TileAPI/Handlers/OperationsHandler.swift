import HTTPTransport
import Pyramid

/// `/healthz` and `/metrics`.
struct OperationsHandler: Sendable {
    let metrics: Metrics
    let tiles: TileService
    let connections: ConnectionGauge
    let access: AccessControl?

    init(_ services: Services) {
        metrics = services.metrics
        tiles = services.tiles
        connections = services.connections
        access = services.access
    }

    func health(_ context: RequestContext) throws -> HandlerOutcome {
        .response(.text("ok\n"))
    }

    func metrics(_ context: RequestContext) throws -> HandlerOutcome {
        .response(.text(metrics.render(tiles.statistics(), openConnections: connections.open) + (access?.refusals.text ?? ""),
                        contentType: "text/plain; version=0.0.4; charset=utf-8"))
    }
}
