import POSIXSupport
import ImageCodecs
import TileGeometry

/// How a missed tile is made from its image's decode passes, and where passes put what they cut.
extension TileService {
    /// The store folder of one version of an image.
    func folder(_ image: String, _ snapshot: PyramidImage.Snapshot) -> String {
        TileStore.folder(image: image, version: snapshot.version, options: options)
    }

    func storeName(_ miss: TileMiss) -> String {
        TileStore.name(folder: folder(miss.image.id, miss.snapshot), tile: miss.key.tile, format: miss.key.format)
    }

    /// The missed tile from the store, or (with no store) from the memory cache a pass put it in. A shared store
    /// is asked only for tiles of a pass some replica has begun (its markers, looked up at most every 2 s, are
    /// kept once found): a tile nobody is cutting costs no GET that would find nothing.
    func stored(_ miss: TileMiss) -> EncodedTile? {
        guard let store else { return cache.value(for: miss.key, countingMiss: false, countingHit: false) }
        if store.isShared, !miss.snapshot.readsDirectly(miss.key.tile.level) {   // tiles made one by one (a slide's) carry no marker
            let shrink = PassPlan.covering(miss.key.tile.level, in: miss.snapshot.geometry).shrink
            let folder = folder(miss.image.id, miss.snapshot)
            guard store.has(StoredPass.startedMarker(folder: folder, shrink: shrink))
                || store.has(StoredPass.doneMarker(folder: folder, shrink: shrink)) else { return nil }
        }
        return store.read(storeName(miss), format: miss.key.format, version: miss.snapshot.version)
    }

    /// A missed tile that costs no decode pass: from the store, or read from a tiled file's own level. Nil
    /// when only a pass could make it; nothing is started then. For answers that must not wait on a pass (the
    /// viewer's page, which writes in a thumbnail only when it is at hand). Reads a file: not on an event loop.
    package func atHand(_ miss: TileMiss) -> EncodedTile? {
        if miss.snapshot.readsDirectly(miss.key.tile.level) { return try? render(miss).tile }
        guard store != nil else { return nil }
        return stored(miss)
    }

    /// A missed tile made in the background that no one may ask for (the level above a view): one a decode pass
    /// will cut is left to that pass, started now if it is not, rather than decoded on its own beside it (a
    /// never-seen photo's fitted view once had each of the 240 tiles of the level above it decoded alone while its
    /// full pass ran, on the cores the 60 visible tiles waited for); any other is made as a request would make it.
    /// Reads a file: not on an event loop.
    package func warm(_ miss: TileMiss) {
        let snapshot = miss.snapshot, tile = miss.key.tile
        if !snapshot.readsDirectly(tile.level) {
            let plan = PassPlan.covering(tile.level, in: snapshot.geometry)
            let finished = store?.has(StoredPass.doneMarker(folder: folder(miss.image.id, snapshot), shrink: plan.shrink)) ?? false
            if !finished, let pass = try? pass(plan, of: miss.image, snapshot), pass.state != .finished, pass.state != .failed { return }
        }
        _ = try? render(miss)
    }

    /// The format a pass stores tiles in: the tile format setting, PNG instead of JPEG for images with alpha
    /// (regions of those read PNG or WebP tiles, which keep it).
    package func passFormat(_ snapshot: PyramidImage.Snapshot) -> ImageFormat {
        options.storedFormat(hasAlpha: snapshot.source.info.hasAlpha)
    }

    /// The pixels of a missed tile: from its pass, started if it is not running; decoded on their own when the
    /// pass is queued or far behind (a baseline file can be cropped: only the rows above and inside the tile are
    /// read; a JPEG indexed to its foot, as its 1/8 pass leaves it, costs only the tile's own size), or when the
    /// store holds the finished pass but lost this tile. Nil when the pass cut the tile before this request asked
    /// (it is then stored).
    func pixels(for miss: TileMiss) throws -> PixelBuffer? {
        let snapshot = miss.snapshot, tile = miss.key.tile
        if snapshot.readsDirectly(tile.level) { return try miss.image.render(tile, in: snapshot) }
        let plan = PassPlan.covering(tile.level, in: snapshot.geometry)
        let croppable = snapshot.source.info.wholeDecodeBytes == 0
        if croppable, let store, store.has(StoredPass.doneMarker(folder: folder(miss.image.id, snapshot), shrink: plan.shrink)) {
            return try direct(miss)
        }
        let pass = try self.pass(plan, of: miss.image, snapshot)
        if plan.shrink == 1, croppable, !pass.isNear(tile) {
            if snapshot.source.regionsAreCheap { return try direct(miss, scaled: true) }
            if snapshot.geometry.overlap == 0, let region = try region(for: tile, of: miss.image, snapshot) {
                return try region.pixels(of: tile)
            }
        }
        return try pass.pixels(of: tile)
    }

    /// The region pass for a tile far ahead of its full pass: the one running for its block, or one started now,
    /// at request priority, on a thread of its own (its encoders run in the background like a full pass's). A
    /// region pass pays a skip through every row above it, work the full pass does once: while another runs,
    /// none is started (nil), and the request waits for the full pass instead, which its waiting moves up the
    /// queue. One viewer zooming gets its region at once; many requests over many images share the full passes.
    private func region(for tile: TileCoordinate, of image: PyramidImage, _ snapshot: PyramidImage.Snapshot) throws -> PyramidPass? {
        guard let (pass, created) = try image.region(for: tile, in: snapshot, make: { plan, window in
            let admitted = passCounters.withLock { counters -> Bool in
                guard counters.regionsRunning < 1 else { return false }
                counters.regionsRunning += 1
                counters.started["region", default: 0] += 1
                return true
            }
            return admitted ? PyramidPass(plan: plan, window: window, snapshot: snapshot, encoders: 1) : nil
        }) else { return nil }
        guard created else { return pass }
        let format = passFormat(snapshot), folder = folder(image.id, snapshot)
        startDetachedThread { [self] in
            pass.run(background: false) { [self] cut in try deliver(cut, format: format, folder: folder, image: image, snapshot) }
            image.regionFinished(pass)
            passCounters.withLock { $0.regionsRunning -= 1 }
        }
        return pass
    }

    /// Encodes a cut tile and keeps it: in the store (unless it is there already), or with no store in the
    /// memory cache. The file is `stat`ed first: pixels cut before a look that finds it unchanged are of this
    /// version; a change fails the pass, so no tile of a file rewritten under a pass is kept under the old
    /// version's name.
    private func deliver(_ cut: PyramidPass.Cut, format: ImageFormat, folder: String, image: PyramidImage,
                         _ snapshot: PyramidImage.Snapshot) throws {
        let name = TileStore.name(folder: folder, tile: cut.tile, format: format)
        if let store, store.has(name) { return } // a region pass or a request stored it already: no second encode
        try snapshot.source.checkUnchanged()
        let tile = try encodedTile(cut.pixels, as: format, of: snapshot)
        if let store {
            store.write(tile, as: name)
        } else {
            cache.insert(tile, for: TileKey(image: image.id, generation: snapshot.generation, tile: cut.tile, format: format))
        }
    }

    /// A tile's pixels encoded as the tile settings say, with the source's profile when its colours are kept, under
    /// the snapshot's version: the one encode every made tile goes through, cut by a pass or rendered alone.
    func encodedTile(_ pixels: PixelBuffer, as format: ImageFormat, of snapshot: PyramidImage.Snapshot) throws -> EncodedTile {
        EncodedTile(bytes: try ImageEncoder.encode(pixels, as: format, quality: options.quality, pngLevel: options.pngLevel, profile: snapshot.source.keptProfile),
                    format: format, version: snapshot.version)
    }

    /// The tile as the JPEG its tiled file already holds it as (`ImageSource.storedJPEG`), counted; nil when the
    /// file does not hold it that way. A file changed since the snapshot is an error, as for a decode.
    func storedJPEG(_ miss: TileMiss) throws -> [UInt8]? {
        let snapshot = miss.snapshot, tile = miss.key.tile
        let rect = try snapshot.geometry.rect(of: tile)
        guard let jpeg = try snapshot.source.storedJPEG(rect, shrink: snapshot.geometry.shrink(ofLevel: tile.level)) else {
            return nil
        }
        try snapshot.source.checkUnchanged()
        passCounters.withLock { $0.storedJPEGs += 1 }
        return jpeg
    }

    /// The tile decoded on its own (`scaled`: at its level's shrink, as a region pass would).
    func direct(_ miss: TileMiss, scaled: Bool = false) throws -> PixelBuffer {
        passCounters.withLock { $0.directDecodes += 1 }
        return try miss.image.render(miss.key.tile, in: miss.snapshot, scaled: scaled)
    }

    /// The pass of `plan` for this version of `image`, queued on the scheduler if new.
    @discardableResult
    func pass(_ plan: PassPlan, of image: PyramidImage, _ snapshot: PyramidImage.Snapshot) throws -> PyramidPass {
        let (pass, created) = try image.pass(plan, for: snapshot) {
            PyramidPass(plan: plan, snapshot: snapshot, encoders: options.passEncoders)
        }
        if created {
            (ImageFiles.isObject(image.path) ? remoteScheduler : scheduler).submit(pass) { [self] in run(pass, of: image) }
        }
        return pass
    }

    /// Runs a pass: marks it started in the store, delivers every tile it cuts (to the store, or with no store
    /// to the memory cache), marks it done when all are delivered.
    private func run(_ pass: PyramidPass, of image: PyramidImage) {
        let snapshot = pass.snapshot, plan = pass.plan
        let folder = folder(image.id, snapshot)
        let key = "\(folder)/\(plan.shrink)"
        let repeated = !passHistory.withLock { $0.insert(key).inserted }
        passCounters.withLock { counters in
            counters.started[plan.name, default: 0] += 1
            if repeated { counters.repeated += 1 }
        }
        store?.mark(StoredPass.startedMarker(folder: folder, shrink: plan.shrink))
        let format = passFormat(snapshot)
        pass.run(memory: renderBudget) { [self] cut in try deliver(cut, format: format, folder: folder, image: image, snapshot) }
        guard pass.state == .finished, !pass.isCancelled else { return }
        store?.mark(StoredPass.doneMarker(folder: folder, shrink: plan.shrink))
        let plans = PassPlan.plans(for: snapshot.geometry)
        let pyramidDone = passHistory.withLock { history in
            history.insert("\(key).done")
            return plans.allSatisfy { history.contains("\(folder)/\($0.shrink).done") }
        }
        passCounters.withLock { counters in
            counters.completed[plan.name, default: 0] += 1
            if pyramidDone { counters.pyramidsCompleted += 1 }
        }
    }

    /// Queues again the passes a crash or a kill interrupted, for the images still in the library at the
    /// version the passes were cutting; runs on the store's scan thread.
    func resume(_ interrupted: [StoredPass]) {
        for stored in interrupted {
            guard let image = images.image(stored.image), let snapshot = try? image.current(), snapshot.version == stored.version,
                  let plan = PassPlan.plans(for: snapshot.geometry).first(where: { $0.shrink == stored.shrink }) else { continue }
            _ = try? pass(plan, of: image, snapshot)
        }
    }
}
