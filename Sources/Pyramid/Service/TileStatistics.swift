import ImageCodecs
/// One reading of everything the tile service counts, for `/metrics`: taken at once, so the page never
/// reaches into the caches and budgets themselves.
package struct TileStatistics: Sendable {
    package let cache: CacheStatistics
    /// Tiles rendered since start (the misses that did the work).
    package let tilesRendered: Int
    package let renderMemory: RenderBudget.Usage
    package let renderBudget: Int
    /// Images in the library now.
    package let images: Int
    /// Images whose file was found damaged or unreadable (and has not changed since).
    package let brokenImages: Int
    /// The persistent tile store's counters; nil when there is none.
    package let store: TileStore.Statistics?
    package let passes: PassStatistics
    /// The JPEG entry indexes' memory and budget (their counts are in `passes`).
    package let entryIndexes: EntryIndexes.Statistics
}
