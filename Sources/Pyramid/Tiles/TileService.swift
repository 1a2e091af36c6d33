import Synchronization

/// The one tile path every protocol handler calls: cache lookup, coalesced rendering, encoding, caching.
public final class TileService: Sendable {
    /// A tile and where it came from.
    public struct Answer: Sendable {
        public enum Origin: String, Sendable {
            case memory, disk, rendered
        }

        public let tile: EncodedTile
        public let origin: Origin
        public var cacheHit: Bool { origin != .rendered }
    }

    /// A render in progress that later requests for the same tile wait on.
    private final class Pending: @unchecked Sendable {
        let lock = ConditionLock()
        var result: Result<EncodedTile, any Swift.Error>?
    }

    public let options: TileOptions
    public let cache: LRUCache<TileKey, EncodedTile>
    public let diskCache: DiskTileCache?
    public let rasterBudget: RasterBudget
    /// Image ids in the order they were given; the first is the default image.
    public let imageIDs: [String]
    private let images: [String: PyramidImage]
    private let pending = Mutex<[TileKey: Pending]>([:])
    private let renderCounter = Atomic<Int>(0)

    public init(images: [PyramidImage], options: TileOptions, diskCache: DiskTileCache? = nil) {
        self.diskCache = diskCache
        self.options = options
        self.imageIDs = images.map(\.id)
        self.images = Dictionary(images.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let cache = LRUCache<TileKey, EncodedTile>(budget: options.cacheBytes, cost: { $0.cost })
        self.cache = cache
        rasterBudget = RasterBudget(budget: options.rasterBytes)
        for image in images {
            image.budget = rasterBudget
            image.onChange = { [id = image.id] old, new in
                cache.removeAll { $0.image == id && $0.generation != new.generation }
                diskCache?.purge(prefix: DiskTileCache.folder(image: id, info: old.source.info, options: options))
            }
        }
    }

    public func image(_ id: String) -> PyramidImage? { images[id] }

    /// Tiles rendered since start (cache misses that did the work, not the ones that waited).
    public var tilesRendered: Int { renderCounter.load(ordering: .relaxed) }

    /// The key of `tile` in the current version of image `id`; validates the tile against the grid.
    public func key(image id: String, tile: TileCoordinate, format: ImageFormat) throws -> (TileKey, PyramidImage, PyramidImage.Snapshot) {
        guard let image = images[id] else { throw TileServiceError.unknownImage(id) }
        let snapshot = try image.current()
        try snapshot.geometry.validate(tile)
        return (TileKey(image: id, generation: snapshot.generation, tile: tile, format: format), image, snapshot)
    }

    /// A cached tile, or nil: the fast path that never renders. A miss here is not counted, since the caller
    /// goes on to `tile(image:tile:format:)`, which counts it.
    public func cached(image id: String, tile: TileCoordinate, format: ImageFormat) throws -> EncodedTile? {
        let (key, _, _) = try key(image: id, tile: tile, format: format)
        return cache.value(for: key, countingMiss: false)
    }

    /// The tile, rendering it if needed; concurrent requests for one uncached tile cause one render.
    public func tile(image id: String, tile: TileCoordinate, format: ImageFormat) throws -> Answer {
        let (key, image, snapshot) = try key(image: id, tile: tile, format: format)
        if let hit = cache.value(for: key) { return Answer(tile: hit, origin: .memory) }
        let (job, owner) = pending.withLock { table -> (Pending, Bool) in
            if let existing = table[key] { return (existing, false) }
            let job = Pending()
            table[key] = job
            return (job, true)
        }
        if !owner {
            let result = job.lock.withLock { () -> Result<EncodedTile, any Swift.Error> in
                while job.result == nil { job.lock.wait() }
                return job.result!
            }
            return Answer(tile: try result.get(), origin: .memory)
        }
        let diskName = DiskTileCache.name(image: id, info: snapshot.source.info, options: options, tile: tile, format: format)
        var origin = Answer.Origin.rendered
        let result = Result { () throws -> EncodedTile in
            if let stored = diskCache?.read(diskName, format: format) {
                origin = .disk
                return stored
            }
            let pixels = try image.render(tile, in: snapshot)
            let bytes = try encode(pixels, as: format)
            return EncodedTile(bytes: bytes, format: format)
        }
        if case let .success(encoded) = result {
            cache.insert(encoded, for: key)
            if origin == .rendered {
                renderCounter.add(1, ordering: .relaxed)
                diskCache?.write(encoded, as: diskName)
            }
        }
        pending.withLock { $0[key] = nil }
        job.lock.withLock {
            job.result = result
            job.lock.broadcast()
        }
        return Answer(tile: try result.get(), origin: origin)
    }

    /// Drops every cached tile and decode pass of image `id`.
    public func purge(image id: String) throws {
        guard let image = images[id] else { throw TileServiceError.unknownImage(id) }
        cache.removeAll { $0.image == id }
        diskCache?.purge(prefix: id)
        image.purgeRasters()
    }

    private func encode(_ pixels: PixelBuffer, as format: ImageFormat) throws -> [UInt8] {
        switch format {
        case .jpeg: try ImageEncoder.jpeg(pixels, quality: options.quality)
        case .png: try ImageEncoder.png(pixels, level: options.pngLevel)
        }
    }
}

/// Errors of the tile service itself.
public enum TileServiceError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    case unknownImage(String)

    public var description: String {
        switch self {
        case let .unknownImage(id): "no image with id '\(id)'"
        }
    }
}
