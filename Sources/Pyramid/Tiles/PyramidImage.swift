import POSIXSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One served image: its source, pyramid geometry and decode passes, renewed when the file changes.
///
/// Levels with a shrink of 8 or more come from one pass at 1/8 (libjpeg's DCT scaling: the fastest way to
/// the whole photo on screen); the levels above from one pass at full resolution. Each pass runs at most once
/// per version of the file, on demand, and tiles are box-averaged from its raster.
public final class PyramidImage: @unchecked Sendable {
    /// What a request works with: one version of the file, never mixed with another.
    public struct Snapshot: Sendable {
        public let source: any ImageSource
        public let geometry: PyramidGeometry
        public let generation: Int
        /// The source's fingerprint (`SourceVersion`): what versioned URLs carry.
        public let version: String
    }

    public let id: String
    public let path: String
    private let options: TileOptions
    private let lock = ConditionLock()
    /// Nil until the header is first needed: a library of 100,000 files starts without reading any.
    private var snapshot: Snapshot?
    /// Why the file could not be opened, with the size and modification time it had then: asked again while the
    /// file is unchanged, the same error comes back without reading it again.
    private var failure: (error: any Swift.Error, stamp: FileStamp?)?
    private var rasters: [Int: DecodedRaster] = [:]
    /// Shared by every image of a service; set once before the image is shared.
    var budget: RasterBudget?
    /// Pixel memory for whole decodes; set once before the image is shared.
    var renderBudget: RenderBudget?
    /// Told the old and the new version when the file changed; set once before the image is shared.
    var onChange: (@Sendable (_ old: Snapshot?, _ new: Snapshot) -> Void)?

    private static let generations = Atomic<Int>(0)
    /// At most one direct region decode per image runs beside its full-resolution pass.
    private let directDecodeBusy = Atomic<Bool>(false)

    /// Whether the source is a file to watch for changes.
    private let watchesFile: Bool
    /// When the file was last `stat`ed (monotonic nanoseconds); checks closer together than
    /// `options.changeCheckInterval` trust the snapshot they have.
    private let lastCheck = Atomic<Int64>(Int64.min)

    /// An image of the file at `path`, its header read now (a broken file throws here).
    public convenience init(id: String, path: String, options: TileOptions) throws {
        self.init(id: id, lazilyAt: path, options: options)
        _ = try current()
    }

    /// An image of the file at `path` whose header is read when first needed (`current()`).
    public init(id: String, lazilyAt path: String, options: TileOptions) {
        self.id = id
        self.path = path
        self.options = options
        watchesFile = true
    }

    /// An image whose pixels come from `source` itself (a synthetic source: nothing to watch or decode).
    public init(id: String, source: any ImageSource, options: TileOptions) {
        self.id = id
        path = source.path
        self.options = options
        watchesFile = false
        snapshot = Self.snapshot(of: source, version: SourceVersion.of(synthetic: source), options)
    }

    private static func open(_ path: String, _ options: TileOptions) throws -> Snapshot {
        let source = try ImageOpener.open(path, limits: options.limits)
        let version = try SourceVersion.of(path: path, fileSize: source.info.fileSize, modified: source.info.modified)
        return snapshot(of: source, version: version, options)
    }

    private static func snapshot(of source: any ImageSource, version: String, _ options: TileOptions) -> Snapshot {
        let geometry = PyramidGeometry(width: source.info.width, height: source.info.height,
                                       tileSize: options.tileSize, overlap: options.overlap)
        return Snapshot(source: source, geometry: geometry, generation: generations.add(1, ordering: .relaxed).newValue,
                        version: version)
    }

    /// The current version. At most once per `changeCheckInterval` a `stat(2)` of the path; a new size or
    /// modification time reopens the file and drops every raster of the old one. In between, the hot path makes
    /// no system call.
    public func current() throws -> Snapshot {
        if let known = try known() { return known }
        lastCheck.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
        let stamp = FileStamp.of(path)
        let (current, old) = try lock.withLock { () -> (Snapshot, Snapshot?) in
            if let snapshot, let stamp, stamp == snapshot.source.info.stamp { return (snapshot, nil) }
            if let failure, let stamp, stamp == failure.stamp { throw failure.error }
            let old = snapshot
            rasters.removeAll()
            do {
                let opened = try Self.open(path, options)
                snapshot = opened
                failure = nil
                return (opened, old)
            } catch {
                snapshot = nil
                failure = (error, stamp)
                throw error
            }
        }
        if let old { onChange?(old, current) }
        return current
    }

    /// What `current()` answers when it needs no system call: the snapshot (or the failure) while the last
    /// look at the file is recent enough; nil when answering needs the file. Event loops use this and leave
    /// the rest to a pool.
    public func known() throws -> Snapshot? {
        let last = lastCheck.load(ordering: .relaxed)
        guard !watchesFile || (last != Int64.min && Double(MonotonicClock.nanoseconds() &- last) < options.changeCheckInterval * 1e9) else {
            return nil
        }
        let known: Result<Snapshot, any Swift.Error>? = lock.withLock {
            if let snapshot { return .success(snapshot) }
            return failure.map { .failure($0.error) }
        }
        return try known?.get()
    }

    /// The snapshot if the header was read already; never reads or `stat`s anything.
    var opened: Snapshot? { lock.withLock { snapshot } }

    /// Makes the next `current()` look at the file again, whenever it was last looked at: the library calls
    /// this when the folder watcher reports the file written or replaced.
    func recheck() {
        lastCheck.store(Int64.min, ordering: .relaxed)
    }

    /// Forgets the decode passes (their files vanish once no reader holds them).
    func purgeRasters() {
        lock.withLock { rasters.removeAll() }
    }

    /// Forgets `raster` if it is still one of this image's passes (the budget needs its space).
    private func drop(_ raster: DecodedRaster?) {
        guard let raster else { return }
        lock.withLock { rasters = rasters.filter { $0.value !== raster } }
    }

    /// Bytes held on disk by this image's decode passes.
    var rasterBytes: Int { lock.withLock { rasters.values.reduce(0) { $0 + $1.byteSize } } }

    /// The decode pass at `shrink` for `snapshot`, started on first use; a failed pass is replaced.
    func raster(shrink: Int, for snapshot: Snapshot) throws -> DecodedRaster {
        let (raster, created) = try lock.withLock { () throws -> (DecodedRaster, Bool) in
            guard snapshot.generation == self.snapshot?.generation else {
                throw PyramidError.sourceChanged(path: path)
            }
            if let existing = rasters[shrink], !existing.hasFailed { return (existing, false) }
            let (w, h) = snapshot.source.size(shrink: shrink)
            let raster = try DecodedRaster(width: w, height: h, channels: snapshot.source.info.channels,
                                           shrink: shrink, directory: options.rasterDirectory)
            rasters[shrink] = raster
            raster.start(from: snapshot.source, memory: renderBudget)
            return (raster, true)
        }
        if created {
            budget?.admit(raster) { [weak self, weak raster] in self?.drop(raster) }
        } else {
            budget?.touch(raster)
        }
        return raster
    }

    /// The pixels of `tile`: its rectangle at the level's scale, area-averaged from the nearest pass.
    public func render(_ tile: TileCoordinate, in snapshot: Snapshot) throws -> PixelBuffer {
        let geometry = snapshot.geometry
        let rect = try geometry.rect(of: tile)
        let shrink = geometry.shrink(ofLevel: tile.level)
        if snapshot.source.isRandomAccess { return try snapshot.source.decode(rect, shrink: shrink) }
        let base = shrink >= 8 ? 8 : 1
        let factor = shrink / base
        let raster = try raster(shrink: base, for: snapshot)
        let region = PixelRect(x: rect.x * factor, y: rect.y * factor,
                               width: min(rect.maxX * factor, raster.width) - rect.x * factor,
                               height: min(rect.maxY * factor, raster.height) - rect.y * factor)
        // The full-resolution pass writes ~3 bytes a pixel and runs slower than a bare decode. A tile far below
        // its progress is decoded directly (crop + skip: one partial sequential pass) on the other core, one
        // at a time; every other tile waits for the rows it needs.
        if base == 1, factor == 1, !snapshot.source.info.progressive, raster.progress * 5 < region.maxY * 4,
           directDecodeBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            defer { directDecodeBusy.store(false, ordering: .releasing) }
            return try snapshot.source.decode(rect, shrink: 1)
        }
        // Levels below a pass are cascaded 2 × 2 halvings of it, as the builder and vips dzsave make them.
        return try raster.read(region).halved(times: factor.trailingZeroBitCount)
    }
}
