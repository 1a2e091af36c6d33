import POSIXSupport
import Synchronization
import ImageCodecs
import TileGeometry

/// The one tile path every protocol handler calls: memory cache, then the persistent tile store, then the
/// image's decode pass (coalesced: one producer per tile), encoding and caching. Regions and view images are
/// assembled from the same tiles (`TileService+Region`); passes are run and stored in `TileService+Passes`.
public final class TileService: ImageChanges {
    /// A tile and where it came from.
    public struct Answer: Sendable {
        public enum Origin: String, Sendable {
            case memory, disk, rendered
        }

        public let tile: EncodedTile
        public let origin: Origin
    }

    /// What a finished flight hands every waiter: the encoded tile, and its pixels when it rendered them.
    struct Produced: Sendable {
        let tile: EncodedTile
        let origin: Answer.Origin
        let pixels: PixelBuffer?
    }

    /// A render in progress that later requests for the same tile wait on.
    private final class Pending: @unchecked Sendable {
        let lock = ConditionLock()
        var result: Result<Produced, any Swift.Error>?
    }

    package let options: TileOptions
    package let cache: LRUCache<TileKey, EncodedTile>
    /// Where every tile a pass cuts is kept across restarts; nil: tiles live in the memory cache only.
    let store: TileStore?
    /// Passes of local masters, and passes of masters in object storage on slots of their own: a pass waiting
    /// on a slow or hung store never keeps a local master's pass (and the tiles waiting on it) waiting.
    let scheduler: PassScheduler
    let remoteScheduler: PassScheduler
    let passCounters = Locked(PassStatistics())
    /// The passes this process started and finished (`folder/shrink`, and `folder/shrink.done`): what counts a
    /// repeat and a completed pyramid, kept apart from the counters `/metrics` copies.
    let passHistory = Locked<Set<String>>([])
    package let renderBudget: RenderBudget
    /// The thread that looks at image files for answers that must not (`CachedTileReader` on an event loop).
    let fileChecks = FileChecks()
    /// The images served.
    package let images: any ImageDirectory
    private let pending = Locked<[TileKey: Pending]>([:])
    private let renderCounter = Atomic<Int>(0)

    /// A service over a fixed set of images, in the order given.
    public convenience init(images: [PyramidImage], options: TileOptions, store: TileStore? = nil) {
        self.init(directory: ImageList(images), options: options, store: store)
    }

    /// A service over `directory`: every image it holds or gains shares this service's budgets, and every image it
    /// loses has its cached tiles, stored tiles and decode passes released. Starts the store's scan, and runs
    /// again the passes a crash interrupted once the scan has found them. The store also keeps the JPEG entry
    /// indexes of the options' limits.
    public init(directory: any ImageDirectory, options: TileOptions, store: TileStore? = nil) {
        self.store = store
        self.options = options
        self.images = directory
        cache = LRUCache(budget: options.cacheBytes, cost: { $0.cost })
        renderBudget = RenderBudget(capacity: options.renderBytes, queueLimit: options.renderQueue, maxWait: options.renderWait)
        scheduler = PassScheduler(slots: options.passes)
        remoteScheduler = PassScheduler(slots: options.passes)
        directory.attach(self)
        if let store {
            options.limits.indexes.keep(in: store)
            options.files.structures?.keep(in: store)
        }
        store?.startScan { [weak self] interrupted in self?.resume(interrupted) }
    }

    public func imageMade(_ image: PyramidImage) {
        let (cache, store, options) = (cache, store, options)
        image.onChange = { [id = image.id] old, new in
            cache.removeAll { $0.image == id && $0.generation != new.generation }
            if let old { store?.purge(prefix: TileStore.folder(image: id, version: old.version, options: options)) }
        }
    }

    public func imageRemoved(_ image: PyramidImage) {
        image.purgePasses()
        cache.removeAll { $0.image == image.id }
        store?.purge(prefix: TileStore.folder(image: image.id))
    }

    public func image(_ id: String) -> PyramidImage? { images.image(id) }

    /// Tiles rendered since start (cache misses that did the work, not the ones that waited).
    var tilesRendered: Int { renderCounter.load(ordering: .relaxed) }

    /// What the service counts, read now.
    package func statistics() -> TileStatistics {
        var passes = passCounters.withLock { $0 }
        let (local, remote) = (scheduler.counts, remoteScheduler.counts)
        (passes.running, passes.queued) = (local.running + remote.running, local.queued + remote.queued)
        let indexes = options.limits.indexes.statistics()
        passes.jpegExtracts = indexes.extracts
        passes.jpegEighthsScanned = indexes.eighthsScanned
        return TileStatistics(cache: cache.statistics, tilesRendered: tilesRendered, renderMemory: renderBudget.usage,
                              renderBudget: renderBudget.capacity, images: images.count, brokenImages: images.brokenCount, store: store?.statistics, passes: passes,
                              entryIndexes: indexes)
    }

    /// The one look at the cache a tile request makes: the hit, or a miss that carries the key and snapshot on
    /// to `render(_:)`, so nothing is looked up, `stat`ed or validated twice. Counts one hit or one miss.
    package func lookup(image id: String, tile: TileCoordinate, format: ImageFormat) throws -> TileLookup {
        guard let image = images.image(id) else { throw TileServiceError.unknownImage(id) }
        return try lookup(image, snapshot: image.current(), tile: tile, format: format, limit: .none)
    }

    /// The same for an image and version already in hand (regions and view images use many tiles of one).
    /// `limit`: the most the one asking may see of the image; a tile of a level past it is refused (`pastLimit`).
    package func lookup(_ image: PyramidImage, snapshot: PyramidImage.Snapshot, tile: TileCoordinate,
                       format: ImageFormat, limit: OutputLimit, countingMiss: Bool = true) throws -> TileLookup {
        try snapshot.geometry.validate(tile)
        guard limit.permits(level: tile.level, of: snapshot.geometry) else { throw TileServiceError.pastLimit(limit) }
        let key = TileKey(image: image.id, generation: snapshot.generation, tile: tile, format: format)
        if let hit = cache.value(for: key, countingMiss: countingMiss) { return .hit(hit) }
        return .miss(TileMiss(key: key, image: image, snapshot: snapshot))
    }

    /// The tile, rendering it if needed; concurrent requests for one uncached tile cause one render.
    public func tile(image id: String, tile: TileCoordinate, format: ImageFormat) throws -> Answer {
        switch try lookup(image: id, tile: tile, format: format) {
        case let .hit(hit): Answer(tile: hit, origin: .memory)
        case let .miss(miss): try render(miss)
        }
    }

    /// Produces a missed tile: from the disk cache, or rendered, encoded and cached; coalesced with every
    /// concurrent request for the same key.
    package func render(_ miss: TileMiss) throws -> Answer {
        let produced = try produce(miss)
        return Answer(tile: produced.tile, origin: produced.origin)
    }

    func produce(_ miss: TileMiss) throws -> Produced {
        let key = miss.key
        // A flight that finished between the lookup and now left its tile in the cache: no second render.
        if let late = cache.value(for: key, countingMiss: false, countingHit: false) {
            return Produced(tile: late, origin: .memory, pixels: nil)
        }
        let (job, owner) = pending.withLock { table -> (Pending, Bool) in
            if let existing = table[key] { return (existing, false) }
            let job = Pending()
            table[key] = job
            return (job, true)
        }
        if !owner {
            let result = BlockingWait.during {
                job.lock.withLock { () -> Result<Produced, any Swift.Error> in
                    while true {
                        if let result = job.result { return result }
                        job.lock.wait()
                    }
                }
            }
            let produced = try result.get()
            return Produced(tile: produced.tile, origin: .memory, pixels: produced.pixels)
        }
        // A tile read straight from a tiled file costs about what reading it back from the store would: such tiles
        // are not stored (the file is their store), which saves a look and a write per tile.
        let fromFile = miss.snapshot.fileIsStore(key.tile.level)
        let result = Result { () throws -> Produced in
            if !fromFile, let stored = stored(miss) { return Produced(tile: stored, origin: .disk, pixels: nil) }
            if miss.snapshot.readsDirectly(key.tile.level), key.format == .jpeg, let jpeg = try storedJPEG(miss) {
                return Produced(tile: EncodedTile(bytes: jpeg, format: .jpeg, version: miss.snapshot.version),
                                origin: .rendered, pixels: nil)
            }
            // A file rewritten while its pass ran may have given rows of two versions, or failed half-way: never
            // cache or serve those; a failure on a changed file is the change (503, ask again), not a broken file.
            let pixels: PixelBuffer
            do {
                if let made = try self.pixels(for: miss) {
                    pixels = made
                } else if let stored = stored(miss) { // cut and stored by its pass before this request asked
                    return Produced(tile: stored, origin: .disk, pixels: nil)
                } else {
                    pixels = try direct(miss)
                }
            } catch {
                try miss.snapshot.source.checkUnchanged()
                if let error = error as? ImageSourceError, error.isDamage { images.recordFailure(miss.image.id, error) }
                throw error
            }
            try miss.snapshot.source.checkUnchanged()
            let encoded = try encodedTile(pixels, as: key.format, of: miss.snapshot)
            return Produced(tile: encoded, origin: .rendered, pixels: pixels)
        }
        if case let .success(produced) = result {
            cache.insert(produced.tile, for: key)
            if produced.origin == .rendered {
                renderCounter.add(1, ordering: .relaxed)
                if !fromFile { store?.write(produced.tile, as: storeName(miss)) }
            }
        }
        pending.withLock { $0[key] = nil }
        job.lock.withLock {
            job.result = result
            job.lock.broadcast()
        }
        return try result.get()
    }

    /// Drops every cached and stored tile and every decode pass of image `id`.
    func purge(image id: String) throws {
        guard let image = images.image(id) else { throw TileServiceError.unknownImage(id) }
        image.purgePasses()
        cache.removeAll { $0.image == id }
        store?.purge(prefix: TileStore.folder(image: id))
    }
}

/// The outcome of one cache look: the tile, or what its render needs.
package enum TileLookup: Sendable {
    case hit(EncodedTile)
    case miss(TileMiss)
}

/// A tile the cache did not have: its key with the image and the version the lookup validated it against.
package struct TileMiss: Sendable {
    package let key: TileKey
    let image: PyramidImage
    let snapshot: PyramidImage.Snapshot
    /// The source version the tile will be cut from.
    package var version: String { snapshot.version }
}

/// Errors of the tile service itself.
package enum TileServiceError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    case unknownImage(String)
    /// A picture larger than the one asking may see (their `OutputLimit`).
    case pastLimit(OutputLimit)

    package var description: String {
        switch self {
        case let .unknownImage(id): "no image with id '\(id)'"
        case let .pastLimit(limit): "this picture is larger than may be shown (\(limit))"
        }
    }
}
