import POSIXSupport
import Synchronization
import ImageCodecs
import TileGeometry

/// One sequential decode of one version of a master, emitting every tile of the levels its plan covers as the
/// rows stream in, the way `tileserver build` and `vips dzsave` do: each level keeps only the rows its next
/// tile row needs and hands 2 × 2 averages to the level below, so the memory a pass holds is a few hundred rows
/// of each level, never the image. Cut tiles go to `deliver` (encode and store) on background encoder threads;
/// a request waiting for a tile gets its pixels the moment it is cut, without waiting for the encoders.
final class PyramidPass: @unchecked Sendable {
    enum Phase: Equatable {
        case queued, running, finished, failed
    }

    /// A tile cut by the pass, on its way to `deliver`.
    struct Cut: Sendable {
        let tile: TileCoordinate
        let pixels: PixelBuffer
    }

    let plan: PassPlan
    /// Tile columns and rows of the plan's top level the pass makes (and what lies under them below); nil: all.
    let window: PassWindow?
    let snapshot: PyramidImage.Snapshot
    /// Encoder threads beside the decoding thread.
    let encoders: Int
    /// When the pass was queued (monotonic), for first-come order among equals.
    let queuedAt = MonotonicClock.nanoseconds()

    private let lock = ConditionLock()
    private var phase = Phase.queued
    private var failure: (any Swift.Error)?
    private var cancelled = false
    /// Rows of the decode (at `plan.shrink`) received so far.
    private var inputRows = 0
    /// Tile rows cut so far, by level.
    private var rowsCut: [Int: Int] = [:]
    /// Tiles of the rows being cut now (their row is not in `rowsCut` yet).
    private var cutInRow: Set<TileCoordinate> = []
    /// Tiles requests wait for: how many wait, and the pixels once cut (kept until the last has taken them).
    private var wanted: [TileCoordinate: (waiting: Int, pixels: PixelBuffer?)] = [:]
    /// Tiles cut and still with the encoders, with their pixels.
    private var inFlight: [TileCoordinate: PixelBuffer] = [:]
    private let waiting = Atomic<Int>(0)

    init(plan: PassPlan, window: PassWindow? = nil, snapshot: PyramidImage.Snapshot, encoders: Int) {
        self.plan = plan
        self.window = window
        self.snapshot = snapshot
        self.encoders = max(1, encoders)
    }

    /// Requests waiting on this pass now: the scheduler runs passes someone waits for first.
    var demand: Int { waiting.load(ordering: .relaxed) }

    /// Pixels the pass decodes (at its shrink): how long it runs, roughly.
    var pixels: Int {
        if let window {
            let side = snapshot.geometry.tileSize
            return window.columns.count * side * window.rows.count * side
        }
        let (width, height) = snapshot.geometry.levelSize(plan.levels.upperBound)
        return width * height
    }

    var state: Phase { lock.withLock { phase } }
    var isDone: Bool { lock.withLock { phase == .finished || phase == .failed } }

    /// True while the pass runs and has decoded at least four fifths of the rows `tile` needs: waiting for
    /// it is then about as quick as decoding the tile alone.
    func isNear(_ tile: TileCoordinate) -> Bool {
        let needed = plan.inputRows(toCut: tile.y, ofLevel: tile.level, in: snapshot.geometry)
        return lock.withLock { phase == .running && inputRows * 5 >= needed * 4 }
    }

    /// Stops the pass at its next band (the file changed, or the image left the library); nothing more it
    /// cuts is delivered.
    func cancel() {
        lock.withLock {
            cancelled = true
            lock.broadcast()
        }
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Waits for `tile` to be cut and returns its pixels; nil when it was cut and delivered before this call
    /// (it is then wherever `deliver` put it). Throws the error that stopped the pass.
    func pixels(of tile: TileCoordinate) throws -> PixelBuffer? {
        try lock.withLock {
            if let pixels = inFlight[tile] { return pixels }
            if (rowsCut[tile.level] ?? 0) > tile.y || cutInRow.contains(tile) { return nil }
            wanted[tile, default: (0, nil)].waiting += 1
            waiting.add(1, ordering: .relaxed)
            defer {
                waiting.subtract(1, ordering: .relaxed)
                wanted[tile]!.waiting -= 1
                if wanted[tile]!.waiting == 0 { wanted[tile] = nil }
            }
            // The wait is on this pass's thread, not the CPU: a pool of render threads may start another meanwhile.
            return try BlockingWait.during { () throws -> PixelBuffer in
                while true {
                    if let pixels = wanted[tile]!.pixels { return pixels }
                    if let failure { throw failure }
                    if cancelled || phase == .finished { throw ImageSourceError.changed(path: snapshot.source.path) }
                    lock.wait()
                }
            }
        }
    }

    /// Runs the pass on the calling thread: decode, cut, hand each tile to `deliver` on `encoders` threads of
    /// background priority. A `background` pass decodes at that priority too from the first band no request waits
    /// on it, for good (an unprivileged thread cannot raise its priority again): while requests wait (a
    /// thumbnail on its 1/8 pass, a tile on the rows above it), it has theirs, so the extracts other requests
    /// decode meanwhile cannot starve it. `deliver` is not called for tiles cut after a cancel.
    func run(background: Bool = true, memory: RenderBudget? = nil, deliver: @escaping @Sendable (Cut) throws -> Void) {
        var lowered = !background
        lock.withLock { phase = .running }
        let geometry = snapshot.geometry
        let top = plan.levels.upperBound
        let (topWidth, topHeight) = geometry.levelSize(top)
        let ts = geometry.tileSize
        let x0 = (window?.columns.lowerBound ?? 0) * ts, y0 = (window?.rows.lowerBound ?? 0) * ts
        let x1 = window.map { min(topWidth, $0.columns.upperBound * ts) } ?? topWidth
        let y1 = window.map { min(topHeight, $0.rows.upperBound * ts) } ?? topHeight
        let capacity = window.map { $0.columns.count * $0.rows.count + 1 } ?? 48
        let queue = EncodeQueue<Cut>(threads: encoders, capacity: capacity, background: true) { [self] cut in
            guard !isCancelled else { return }
            try deliver(cut)
            lock.withLock { inFlight[cut.tile] = nil }
        }
        var bands = plan.levels.map { level -> LevelBand in
            let f = 1 << (top - level)
            return LevelBand(level: level, width: (x1 + f - 1) / f - x0 / f, height: (y1 + f - 1) / f,
                             channels: snapshot.source.info.channels, tileSize: ts, overlap: geometry.overlap,
                             originX: x0 / f, originRow: y0 / f)
        }
        let low = plan.levels.lowerBound
        func cutReadyTiles(_ level: Int) throws {
            let i = level - low
            let f = 1 << (top - level)
            let columns = window.map { $0.columns.lowerBound / f ..< min(geometry.tileCount(level).columns, ($0.columns.upperBound + f - 1) / f) }
                ?? 0 ..< geometry.tileCount(level).columns
            while let tileRow = bands[i].readyTileRow {
                for x in columns {
                    let tile = TileCoordinate(level: level, x: x, y: tileRow)
                    let pixels = bands[i].crop(try geometry.rect(of: tile))
                    lock.withLock {
                        if wanted[tile] != nil {
                            wanted[tile]!.pixels = pixels
                            lock.broadcast()
                        }
                        inFlight[tile] = pixels
                        cutInRow.insert(tile)
                    }
                    try queue.push(Cut(tile: tile, pixels: pixels))
                }
                bands[i].finishTileRow()
                lock.withLock {
                    rowsCut[level] = tileRow + 1
                    cutInRow = cutInRow.filter { $0.level != level }
                }
            }
        }
        do {
            // A source that must decode whole first (progressive JPEG, Adam7 PNG) holds a lease of that memory for
            // the whole pass, or fails naming the limit.
            let whole = snapshot.source.info.wholeDecodeBytes
            let lease = whole > 0 ? try memory.map { try Self.lease(whole, from: $0, for: snapshot.source) } : nil
            defer { lease?.release() }
            try snapshot.source.decode(PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), shrink: plan.shrink, bandRows: 64) { band in
                let rowBytes = band.width * band.channels
                for r in 0 ..< band.rows {
                    var level = plan.levels.upperBound
                    var down = bands[level - low].append(UnsafeBufferPointer(rebasing: band.bytes[r * rowBytes ..< (r + 1) * rowBytes]))
                    try cutReadyTiles(level)
                    while let row = down, level > low {
                        level -= 1
                        down = row.withUnsafeBufferPointer { bands[level - low].append($0) }
                        try cutReadyTiles(level)
                    }
                }
                if !lowered && demand == 0 {
                    lowerCurrentThreadPriority()
                    lowered = true
                }
                // A master rewritten while it streams may give rows of two versions: stop at the next band.
                try snapshot.source.checkUnchanged()
                try lock.withLock {
                    if cancelled { throw ImageSourceError.changed(path: snapshot.source.path) }
                    inputRows = y0 + band.y + band.rows
                    lock.broadcast()
                }
            }
            try queue.finish()
            lock.withLock {
                phase = .finished
                inFlight.removeAll()
                lock.broadcast()
            }
        } catch {
            queue.abandon()
            lock.withLock {
                failure = error
                phase = .failed
                inFlight.removeAll()
                lock.broadcast()
            }
        }
    }
}

extension PyramidPass {
    /// `bytes` of `memory` for a whole decode; a decode larger than the whole budget fails saying what to change.
    static func lease(_ bytes: Int, from memory: RenderBudget, for source: any ImageSource) throws -> RenderBudget.Lease {
        do { return try memory.acquire(bytes) } catch {
            guard case let .tooLarge(bytes, capacity) = error else { throw error } // busy: 503, try again
            let info = source.info
            let kind = info.format == .png ? "an interlaced (Adam7) PNG" : "a progressive JPEG"
            throw ImageSourceError.outOfMemory(path: source.path, message:
                "\(kind) of \(info.width)×\(info.height) must be decoded whole, which takes \(RenderBudgetError.megabytes(bytes)) MB; "
                    + "the render budget is \(RenderBudgetError.megabytes(capacity)) MB (--render-memory-mb): raise it, or save the "
                    + "image \(info.format == .png ? "without interlacing" : "as baseline JPEG")")
        }
    }
}

/// A block of tile columns and rows of a pass's top level.
struct PassWindow: Sendable, Hashable {
    let columns: Range<Int>
    let rows: Range<Int>
}
