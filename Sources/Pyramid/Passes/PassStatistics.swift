/// What the decode passes have done, for `/metrics`.
public struct PassStatistics: Sendable, Equatable {
    /// Passes started, by `PassPlan.name` ("1/8", "full").
    public var started: [String: Int] = [:]
    /// Passes that cut and delivered every tile of their levels, by name.
    public var completed: [String: Int] = [:]
    /// Passes started again for a version of an image whose pass of the same kind had run in this process
    /// (a store too small for the collection, or a crash of the pass): a master read more than once.
    public var repeated = 0
    /// Images whose every level is stored (all their passes completed).
    public var pyramidsCompleted = 0
    /// Tiles decoded on their own because their pass was queued or far behind, or its tiles were evicted.
    public var directDecodes = 0
    /// Tiles served as the JPEG their tiled TIFF stores them as, neither decoded nor encoded.
    public var storedJPEGs = 0
    /// Regions answered by joining their tiles' JPEG coefficients (`TileService.joinedRegion`), neither decoded
    /// nor encoded.
    public var joinedRegions = 0
    /// Regions of large JPEGs decoded from an extract of their MCUs (`JPEGEntryIndex`) instead of a skip
    /// through every row above them; process-wide.
    public var jpegExtracts = 0
    /// Large JPEGs whose 1/8 pass came from the scan that builds their entry index; process-wide.
    public var jpegEighthsScanned = 0
    public var running = 0
    /// Region passes running now.
    public var regionsRunning = 0
    public var queued = 0
}
