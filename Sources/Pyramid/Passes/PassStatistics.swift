/// What the decode passes have done, for `/metrics`.
package struct PassStatistics: Sendable, Equatable {
    /// Passes started, by `PassPlan.name` ("1/8", "full").
    package var started: [String: Int] = [:]
    /// Passes that cut and delivered every tile of their levels, by name.
    package var completed: [String: Int] = [:]
    /// Passes started again for a version of an image whose pass of the same kind had run in this process
    /// (a store too small for the collection, or a crash of the pass): a master read more than once.
    package var repeated = 0
    /// Images whose every level is stored (all their passes completed).
    package var pyramidsCompleted = 0
    /// Tiles decoded on their own because their pass was queued or far behind, or its tiles were evicted.
    package var directDecodes = 0
    /// Tiles served as the JPEG their tiled TIFF stores them as, neither decoded nor encoded.
    package var storedJPEGs = 0
    /// Regions answered by joining their tiles' JPEG coefficients (`TileService.joinedRegion`), neither decoded
    /// nor encoded.
    package var joinedRegions = 0
    /// Regions of large JPEGs decoded from an extract of their MCUs (`JPEGEntryIndex`) instead of a skip
    /// through every row above them; process-wide.
    package var jpegExtracts = 0
    /// Large JPEGs whose 1/8 pass came from the scan that builds their entry index; process-wide.
    package var jpegEighthsScanned = 0
    package var running = 0
    /// Region passes running now.
    package var regionsRunning = 0
    package var queued = 0
}
