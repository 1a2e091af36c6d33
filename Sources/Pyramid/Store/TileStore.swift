import FoundationEssentials
import POSIXSupport
import Synchronization
import ImageCodecs
import ObjectStorage

#if canImport(Glibc)
import Glibc
import TileGeometry
#endif

/// Encoded tiles kept across restarts, one file (or object) a tile: the persistent half of the tile path, where a
/// decode pass puts every tile it cuts. On disk (`DirectoryStore`) it is bounded by bytes with least-recently-used
/// eviction; in object storage (`ObjectStore`, shared by every replica) by the bucket's lifecycle rule.
///
/// Files are named by what determines their bytes: the image id, the source's version (`SourceVersion`: size,
/// modification time and a hash of both ends of the file), tile size, overlap and quality, then level, column,
/// row and format; a replaced master or a changed setting never meets old tiles. Each file is written under a
/// temporary name and renamed into place, and a read checks the format's end marker, so a tile cut short by a
/// crash or a full disk is never served. Reads need no index: a restarted server serves what it finds at once,
/// while a background scan rebuilds the byte count and the eviction order (oldest modification first).
public final class TileStore: Sendable {
    /// What the store counts, read together: its tiles as a cache counts them (hits and misses are reads of
    /// the store), and the tiles written.
    package struct Statistics: Sendable, Equatable {
        package var tiles: CacheStatistics
        package var writes: Int
        /// Tiles a shared store in object storage did not keep: its writes waiting were at their memory bound.
        package var droppedWrites = 0
    }

    /// Where the tiles are: a directory, or an `s3://bucket/prefix`.
    package let directory: String
    private let backend: any StoreBackend
    private let index: LRUCache<String, Int>
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let writes = Atomic<Int>(0)
    private let scanned = Atomic<Bool>(false)

    /// A store in `directory` (created if missing) holding at most `budget` bytes of tiles.
    public convenience init(directory: String, budget: Int) throws {
        self.init(backend: try DirectoryStore(directory: directory), budget: budget)
    }

    /// A store of objects under `location`, shared with every replica that names it; `objects` reads and writes them.
    package convenience init(objects: RemoteObjects, location: S3Location) {
        self.init(backend: ObjectStore(objects: objects, location: location), budget: .max)
    }

    private init(backend: any StoreBackend, budget: Int) {
        self.backend = backend
        self.directory = backend.location
        index = LRUCache(budget: budget, cost: { $0 })
    }

    /// Scans the directory on a background thread: counts every tile into the budget (evicting the oldest
    /// beyond it), removes temporary files of writers no longer running, and hands `interrupted` the passes
    /// that started but never finished (a crash or a kill), so they can be run again.
    package func startScan(interrupted: @escaping @Sendable ([StoredPass]) -> Void = { _ in }) {
        startDetachedThread { [self] in
            lowerCurrentThreadPriority()
            let found = backend.scan()
            for file in found.tiles.sorted(by: { $0.modified < $1.modified }) where index.value(for: file.name, countingMiss: false, countingHit: false) == nil {
                evict(index.insert(file.size, for: file.name))
            }
            scanned.store(true, ordering: .releasing)
            interrupted(found.interrupted)
        }
    }

    /// Blocks until the start-up scan has finished (tests, and tools that need exact figures).
    package func waitUntilScanned() {
        while !scanned.load(ordering: .acquiring) { usleep(2000) }
    }

    package var statistics: Statistics {
        var tiles = index.statistics
        tiles.hits = hits.load(ordering: .relaxed)
        tiles.misses = misses.load(ordering: .relaxed)
        return Statistics(tiles: tiles, writes: writes.load(ordering: .relaxed), droppedWrites: backend.droppedWrites)
    }

    /// The folder of one version of an image's tiles under one setting.
    package static func folder(image: String, version: String, options: TileOptions) -> String {
        "\(folder(image: image))/\(version)-t\(options.tileSize)o\(options.overlap)q\(options.quality)"
    }

    /// The folder of all of an image's tiles: its id with `/` written `%2F`, so `a` and `a/b` never nest (ids
    /// hold no `%`).
    package static func folder(image: String) -> String {
        image.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
    }

    /// The relative path of a tile.
    package static func name(folder: String, tile: TileCoordinate, format: ImageFormat) -> String {
        folder + "/\(tile.level)/\(tile.x)_\(tile.y).\(format.fileExtension)"
    }

    /// The tile stored as `name`, or nil. A file that does not end the way its format ends (cut short) is
    /// deleted and counts as a miss.
    package func read(_ name: String, format: ImageFormat, version: String = "") -> EncodedTile? {
        guard let bytes = backend.contents(name) else {
            misses.add(1, ordering: .relaxed)
            index.remove(name)
            return nil
        }
        guard format.isComplete(bytes) else {
            misses.add(1, ordering: .relaxed)
            index.remove(name)
            backend.remove(name)
            return nil
        }
        hits.add(1, ordering: .relaxed)
        if index.value(for: name) == nil { evict(index.insert(bytes.count, for: name)) }
        return EncodedTile(bytes: bytes, format: format, version: version)
    }

    /// Writes the tile under a temporary name, renames it into place, then evicts over the budget. A store that
    /// cannot write is only a slower store: failures are dropped.
    package func write(_ tile: EncodedTile, as name: String) {
        guard (try? backend.write(tile.bytes, as: name)) != nil else { return }
        writes.add(1, ordering: .relaxed)
        evict(index.insert(tile.bytes.count, for: name))
    }

    /// Waits for writes still under way: call before the process exits.
    public func flush() { backend.flush() }

    /// Whether the store is shared in object storage, where a look costs a request.
    package var isShared: Bool { backend is ObjectStore }

    /// Whether `name` (a marker, not a tile) exists.
    package func has(_ name: String) -> Bool { backend.exists(name) }

    /// Writes an empty marker file `name` (crash-safe like a tile); markers take no budget.
    package func mark(_ name: String) {
        _ = try? backend.write([], as: name)
    }

    /// Forgets and deletes every tile under the folder `prefix` (an image id, or one version of it).
    func purge(prefix: String) {
        index.removeAll { $0.hasPrefix(prefix + "/") }
        backend.removeAll(under: prefix)
    }

    private func evict(_ evicted: [(String, Int)]) {
        for (name, _) in evicted { backend.remove(name) }
    }
}

extension TileStore: EntryIndexKeeper {
    /// A kept JPEG entry index: outside the tile budget (a few MB for the largest master, one per master).
    package func load(_ name: String) -> [UInt8]? { backend.contents(name) }

    package func save(_ name: String, _ bytes: [UInt8]) { _ = try? backend.write(bytes, as: name) }

    package func names(under folder: String) -> Set<String>? { backend.names(under: folder) }

    package var isObjectStorage: Bool { isShared }
}

/// Why the tile store cannot be used.
package enum TileStoreError: Swift.Error, Sendable, CustomStringConvertible {
    case cannotCreate(directory: String, reason: String)

    package var description: String {
        switch self {
        case let .cannotCreate(directory, reason):
            "cannot use the tile store directory \(directory): \(reason); choose another with --store-dir, or --store-dir off"
        }
    }
}
