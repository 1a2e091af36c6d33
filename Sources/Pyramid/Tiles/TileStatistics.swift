import ImageCodecs
/// One reading of everything the tile service counts, for `/metrics`: taken at once, so the page never
/// reaches into the caches and budgets themselves.
public struct TileStatistics: Sendable {
    public let cache: CacheStatistics
    /// Tiles rendered since start (the misses that did the work).
    public let tilesRendered: Int
    public let renderMemory: RenderBudget.Usage
    public let renderBudget: Int
    /// Images in the library now.
    public let images: Int
    /// Images whose file was found damaged or unreadable (and has not changed since).
    public let brokenImages: Int
    /// The persistent tile store's counters; nil when there is none.
    public let store: TileStore.Statistics?
    public let passes: PassStatistics
}
