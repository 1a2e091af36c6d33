/// `/healthz` and `/metrics`.
enum OperationsHandler {
    static func health(_ context: RequestContext) throws -> HandlerOutcome {
        .response(.text("ok\n"))
    }

    static func metrics(_ context: RequestContext) throws -> HandlerOutcome {
        let app = context.app
        return .response(.text(app.metrics.render(cache: app.tiles.cache.statistics, tilesRendered: app.tiles.tilesRendered,
                                                    renderMemory: app.tiles.renderBudget.usage, renderBudget: app.tiles.renderBudget.capacity,
                                                    images: app.tiles.library.count, decodePassBytes: app.tiles.rasterBudget.bytesInUse),
                               contentType: "text/plain; version=0.0.4; charset=utf-8"))
    }
}
