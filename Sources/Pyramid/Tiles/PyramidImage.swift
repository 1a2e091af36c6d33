import POSIXSupport
import Synchronization
import ImageCodecs

#if canImport(Glibc)
import Glibc
import TileGeometry
#endif

/// One served image: its source, pyramid geometry and decode passes, renewed when the file changes.
///
/// Tiles of a file come from its decode passes (`PassPlan`: one at 1/8 for the small levels, one at full
/// resolution for the rest), each run at most once per version of the file, on demand; the tile service
/// starts them and stores what they cut. A changed file cancels the passes of the old version.
public final class PyramidImage: @unchecked Sendable {
    /// What a request works with: one version of the file, never mixed with another.
    package struct Snapshot: Sendable {
        package let source: any ImageSource
        package let geometry: PyramidGeometry
        package let generation: Int
        /// The source's fingerprint (`SourceVersion`): what versioned URLs carry.
        package let version: String

        /// Whether tiles of `level` are read straight from the file (`ImageSource.isRandomAccess(atShrink:)`).
        func readsDirectly(_ level: Int) -> Bool {
            source.isRandomAccess(atShrink: geometry.shrink(ofLevel: level))
        }

        /// Whether `level`'s tiles are read from the file every time rather than kept in the tile store.
        func fileIsStore(_ level: Int) -> Bool { readsDirectly(level) && source.isOwnTileStore }
    }

    public let id: String
    package let path: String
    private let options: TileOptions
    private let lock = ConditionLock()
    /// Nil until the header is first needed: a library of 100,000 files starts without reading any.
    private var snapshot: Snapshot? {
        didSet {
            published.store(snapshot?.generation ?? 0, ordering: .releasing)
            let now = snapshot
            inHand.withLock { $0.snapshot = now }
        }
    }
    /// `snapshot` and `failure` again, behind a lock of their own that no file read is ever made under (`lock` is
    /// held while a changed file is opened again, for as long as a store that stalls takes): what event loops
    /// (`known()`, `knownVersion()`) and the background look read.
    private let inHand = Locked<(snapshot: Snapshot?, failure: (any Swift.Error)?)>((nil, nil))
    /// The generation of `snapshot` (0: none), readable without the lock.
    private let published = Atomic<Int>(0)
    /// Why the file could not be opened, with the size and modification time it had then: asked again while the
    /// file is unchanged, the same error comes back without reading it again.
    private var failure: (error: any Swift.Error, stamp: FileStamp?)? {
        didSet {
            let now = failure?.error
            inHand.withLock { $0.failure = now }
        }
    }
    /// The decode passes of the current version, by shrink.
    private var passes: [Int: PyramidPass] = [:]
    /// The photo's metadata, read once per version (by generation).
    private var metadata: (generation: Int, value: PhotoMetadata)?
    /// Region passes of the current version running now, by level and window.
    private var regions: [RegionKey: PyramidPass] = [:]

    private struct RegionKey: Hashable {
        let level: Int
        let window: PassWindow
    }
    /// Told the old and the new version when the file changed; set once before the image is shared.
    var onChange: (@Sendable (_ old: Snapshot?, _ new: Snapshot) -> Void)?

    private static let generations = Atomic<Int>(0)

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
    package init(id: String, lazilyAt path: String, options: TileOptions) {
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
        let made = Self.snapshot(of: source, version: SourceVersion.of(synthetic: source), options)
        snapshot = made
        published.store(made.generation, ordering: .releasing)
        inHand.withLock { $0.snapshot = made }   // observers do not run in an initialiser
    }

    private static func open(_ path: String, _ options: TileOptions) throws -> Snapshot {
        let source = try ImageOpener.open(path, limits: options.limits, files: options.files)
        let version = try SourceVersion.of(path: path, stamp: source.info.stamp,
                                           keepsColourProfiles: options.limits.keepsColourProfiles)
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
    package func current() throws -> Snapshot {
        if let known = try known() { return known }
        lastCheck.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
        let stamp = options.files.stamp(path)
        let (current, old) = try lock.withLock { () -> (Snapshot, Snapshot?) in
            if let snapshot, let stamp, stamp == snapshot.source.info.stamp { return (snapshot, nil) }
            if let failure, let stamp, stamp == failure.stamp { throw failure.error }
            let old = snapshot
            dropPasses()
            do {
                let opened = try Self.open(path, options)
                snapshot = opened
                failure = nil
                return (opened, old)
            } catch {
                snapshot = nil
                // An outage of object storage is not the file's fault: the next request tries again.
                failure = (error as? ImageSourceError)?.isTransient == true ? nil : (error, stamp)
                throw error
            }
        }
        if let old { onChange?(old, current) }
        return current
    }

    /// The background look (`FileChecks`): one `stat` (or the object's last listed stamp) against the version in
    /// hand. Unchanged, the look is recent again; changed, or never opened, the next answer opens the file, on a
    /// pool, the slow way. Nothing is opened here and no lock a file read is made under is taken, so one slow file
    /// (an object in a store that stalls) cannot hold back every image's looks, and with them their cached tiles.
    func lookAtFile() {
        let stamp = options.files.stamp(path)
        if let stamp, stamp == inHand.withLock({ $0.snapshot?.source.info.stamp }) {
            lastCheck.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
        } else {
            recheck()
        }
    }

    /// What `current()` answers when it needs no system call: the snapshot (or the failure) while the last
    /// look at the file is recent enough; nil when answering needs the file. Event loops use this and leave
    /// the rest to a pool.
    package func known() throws -> Snapshot? {
        guard look == .recent else { return nil }
        let known: Result<Snapshot, any Swift.Error>? = inHand.withLock {
            if let snapshot = $0.snapshot { return .success(snapshot) }
            return $0.failure.map { .failure($0) }
        }
        return try known?.get()
    }

    /// The generation, version and geometry of the version in hand, for the fast tile path (one lock, nothing else
    /// copied); nil before the first look and for a file that failed. Check `look` first.
    func knownVersion() -> (generation: Int, version: String, geometry: PyramidGeometry)? {
        inHand.withLock { $0.snapshot.map { ($0.generation, $0.version, $0.geometry) } }
    }

    /// The generation of the version in hand (0: none), read without a lock: the fast tile path keeps the
    /// version beside it and asks `knownVersion()` again only when this moves.
    var publishedGeneration: Int { published.load(ordering: .acquiring) }

    /// How recent the last look at the file is, for answers that may not look themselves.
    enum Look: Sendable {
        /// Within the change-check interval (or nothing to look at).
        case recent
        /// Due: have `FileChecks` take it, and answer from the version in hand meanwhile.
        case due
        /// Over twice the interval, or never: the background look is late; answer the slow way, which looks.
        case overdue
    }

    var look: Look {
        let age = checkAge
        return age < 1 ? .recent : age < 2 ? .due : .overdue
    }

    /// Set while a look at the file is queued with `FileChecks`.
    let checkQueued = Atomic<Bool>(false)

    /// Time since the last look at the file, in change-check intervals (0 for a synthetic source; infinite
    /// before the first look and after `recheck()`).
    private var checkAge: Double {
        guard watchesFile else { return 0 }
        let last = lastCheck.load(ordering: .relaxed)
        guard last != Int64.min else { return .infinity }
        return Double(MonotonicClock.nanoseconds() &- last) / (options.changeCheckInterval * 1e9)
    }

    /// What the file of `snapshot` says about itself (`MetadataReader`): read from its header on first use, then
    /// kept for that version. Synthetic sources have none.
    package func metadata(for snapshot: Snapshot) throws -> PhotoMetadata {
        guard watchesFile else { return PhotoMetadata() }
        if let known = lock.withLock({ metadata }), known.generation == snapshot.generation { return known.value }
        let value = try MetadataReader.read(path: path, files: options.files)
        lock.withLock {
            if snapshot.generation == self.snapshot?.generation { metadata = (snapshot.generation, value) }
        }
        return value
    }

    /// The snapshot if the header was read already; never reads or `stat`s anything.
    var opened: Snapshot? { inHand.withLock { $0.snapshot } }

    /// Makes the next `current()` look at the file again, whenever it was last looked at: the library calls
    /// this when the folder watcher reports the file written or replaced.
    package func recheck() {
        lastCheck.store(Int64.min, ordering: .relaxed)
    }

    /// Cancels and forgets the decode passes (the file changed, or the image left the library).
    func purgePasses() {
        lock.withLock { dropPasses() }
    }

    private func dropPasses() {
        passes.values.forEach { $0.cancel() }
        passes.removeAll()
        regions.values.forEach { $0.cancel() }
        regions.removeAll()
    }

    /// Tile columns and rows of a region pass: a block of 16 × 8 tiles of one level (4096 × 2048 pixels), aligned
    /// to that grid, so the tiles a 1280 × 800 viewer shows come from one or two of them. Rows cost a decode of
    /// the whole width (entropy-coded data has no columns), columns only their own: the block is wide.
    static let regionColumns = 16
    static let regionRows = 8

    /// The running region pass that makes `tile`, or a new one from `make` (then `created`): one decode of the
    /// block of tiles around it at the level's shrink, for tiles far ahead of the image's full pass. Nil when
    /// none runs and `make` declines to start one.
    func region(for tile: TileCoordinate, in snapshot: Snapshot,
                make: (PassPlan, PassWindow) -> PyramidPass?) throws -> (pass: PyramidPass, created: Bool)? {
        let c = tile.x / Self.regionColumns * Self.regionColumns, r = tile.y / Self.regionRows * Self.regionRows
        let key = RegionKey(level: tile.level, window: PassWindow(columns: c ..< c + Self.regionColumns, rows: r ..< r + Self.regionRows))
        return try lock.withLock {
            guard snapshot.generation == self.snapshot?.generation else { throw ImageSourceError.changed(path: path) }
            if let existing = regions[key], !existing.isDone, !existing.isCancelled {
                return (existing, false)
            }
            let plan = PassPlan(shrink: snapshot.geometry.shrink(ofLevel: tile.level), levels: tile.level ... tile.level)
            guard let pass = make(plan, key.window) else { return nil }
            regions[key] = pass
            return (pass, true)
        }
    }

    /// Forgets a region pass that has finished.
    func regionFinished(_ pass: PyramidPass) {
        lock.withLock { regions = regions.filter { $0.value !== pass } }
    }

    /// The pass of `plan` for `snapshot`: the one already made, or a new one from `make` (then `created`).
    /// A failed or cancelled pass is replaced; a snapshot that is no longer current throws `ImageSourceError.changed`.
    func pass(_ plan: PassPlan, for snapshot: Snapshot, make: () -> PyramidPass) throws -> (pass: PyramidPass, created: Bool) {
        try lock.withLock {
            guard snapshot.generation == self.snapshot?.generation else { throw ImageSourceError.changed(path: path) }
            if let existing = passes[plan.shrink], existing.state != .failed, !existing.isCancelled { return (existing, false) }
            let pass = make()
            passes[plan.shrink] = pass
            return (pass, true)
        }
    }

    /// The pixels of `tile` decoded on their own, as its pass would cut them: the tile's rectangle at the
    /// pass's shrink (a crop and a skip: only the rows above and inside it are read), halved down to the
    /// level as the pass cascades. Random-access sources, and with `scaled` any source, are decoded at the
    /// level's shrink directly (a JPEG's DCT scaling, as region passes do: a quarter of the work at 1/2).
    package func render(_ tile: TileCoordinate, in snapshot: Snapshot, scaled: Bool = false) throws -> PixelBuffer {
        let geometry = snapshot.geometry
        let rect = try geometry.rect(of: tile)
        let shrink = geometry.shrink(ofLevel: tile.level)
        if snapshot.source.isRandomAccess(atShrink: shrink) || scaled { return try snapshot.source.decode(rect, shrink: shrink) }
        let base = PassPlan.covering(tile.level, in: geometry).shrink
        let factor = shrink / base
        let (width, height) = snapshot.source.size(shrink: base)
        let region = PixelRect(x: rect.x * factor, y: rect.y * factor,
                               width: min(rect.maxX * factor, width) - rect.x * factor,
                               height: min(rect.maxY * factor, height) - rect.y * factor)
        return try snapshot.source.decode(region, shrink: base).halved(times: factor.trailingZeroBitCount)
    }
}
