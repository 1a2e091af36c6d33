/// Where a tile store's bytes live: files in a directory, or objects in object storage. Names are relative paths
/// (`TileStore.name`, markers); a write is whole or absent to every reader, never half.
protocol StoreBackend: Sendable {
    /// The directory, or `s3://bucket/prefix`.
    var location: String { get }
    /// The bytes under `name`, or nil when there are none (or they cannot be read now).
    func contents(_ name: String) -> [UInt8]?
    func write(_ bytes: [UInt8], as name: String) throws
    func exists(_ name: String) -> Bool
    func remove(_ name: String)
    /// Removes everything under the folder `prefix`.
    func removeAll(under prefix: String)
    /// What is there at start: tiles with size and age (for the budget) and passes started and never finished.
    func scan() -> (tiles: [StoreScan.Tile], interrupted: [StoredPass])
    /// The names under the folder `prefix` now (one listing), or nil when the backend does not list them cheaply or
    /// the listing failed.
    func names(under prefix: String) -> Set<String>?
    /// Waits for writes still under way (at exit).
    func flush()
    /// Writes not made because the writes waiting already held their memory bound (a shared store that is slow).
    var droppedWrites: Int { get }
}

extension StoreBackend {
    func names(under prefix: String) -> Set<String>? { nil }
    func flush() {}
    var droppedWrites: Int { 0 }
}
