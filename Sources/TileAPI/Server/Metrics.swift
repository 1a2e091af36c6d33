import HTTPTransport
import POSIXSupport
import Pyramid

/// Counters and histograms for `/metrics`, in Prometheus text format.
final class Metrics: Sendable {
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    fileprivate struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.buckets.count)
        var sum = 0.0
        var total = 0

        mutating func merge(_ other: Histogram) {
            for i in counts.indices { counts[i] += other.counts[i] }
            sum += other.sum
            total += other.total
        }

        mutating func observe(_ seconds: Double) {
            for (i, bound) in Metrics.buckets.enumerated() where seconds <= bound { counts[i] += 1 }
            sum += seconds
            total += 1
        }

        func render(_ name: String) -> String {
            var out = ""
            for (i, bound) in Metrics.buckets.enumerated() { out += "\(name)_bucket{le=\"\(bound)\"} \(counts[i])\n" }
            out += "\(name)_bucket{le=\"+Inf\"} \(total)\n\(name)_sum \(sum)\n\(name)_count \(total)\n"
            return out
        }
    }

    private struct State {
        var requests: [String: [Int: Int]] = [:]
        var duration = Histogram()
        var render = Histogram()
        var prefetchDropped = 0
        var tallies: [Tally] = []
    }

    /// One event loop's counts of the tiles its fast path answered (routes `tile` and `iiif_image`): 200s, 304s and their
    /// durations, behind a lock only that loop and `/metrics` take, added in when the metrics are read.
    final class Tally: Sendable {
        private struct Counts {
            var ok = 0
            var notModified = 0
            /// The same for IIIF image requests that named a tile (route `iiif_image`).
            var iiifOK = 0
            var iiifNotModified = 0
            /// Answers from the loop's own copies (`RecentTiles`): tile cache hits the cache did not see.
            var cacheHits = 0
            var duration = Histogram()
        }

        private let counts = Locked(Counts())

        func count(notModified: Bool, seconds: Double, cacheHit: Bool, iiif: Bool = false) {
            counts.withLock { c in
                switch (iiif, notModified) {
                case (false, false): c.ok += 1
                case (false, true): c.notModified += 1
                case (true, false): c.iiifOK += 1
                case (true, true): c.iiifNotModified += 1
                }
                if cacheHit { c.cacheHits += 1 }
                c.duration.observe(seconds)
            }
        }

        fileprivate func add(to requests: inout [String: [Int: Int]], _ duration: inout Histogram, cacheHits: inout Int) {
            counts.withLock { c in
                if c.ok > 0 { requests["tile", default: [:]][200, default: 0] += c.ok }
                if c.notModified > 0 { requests["tile", default: [:]][304, default: 0] += c.notModified }
                if c.iiifOK > 0 { requests["iiif_image", default: [:]][200, default: 0] += c.iiifOK }
                if c.iiifNotModified > 0 { requests["iiif_image", default: [:]][304, default: 0] += c.iiifNotModified }
                cacheHits += c.cacheHits
                duration.merge(c.duration)
            }
        }
    }

    private let state = Locked(State())

    func request(route: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.requests[route, default: [:]][status, default: 0] += 1
            s.duration.observe(seconds)
        }
    }

    /// A new loop's tally, counted in from now on.
    func makeTally() -> Tally {
        let tally = Tally()
        state.withLock { $0.tallies.append(tally) }
        return tally
    }

    func rendered(seconds: Double) { state.withLock { $0.render.observe(seconds) } }
    func prefetchDropped() { state.withLock { $0.prefetchDropped += 1 } }

    func render(_ tiles: TileStatistics, openConnections: Int) -> String {
        let cache = tiles.cache, renderMemory = tiles.renderMemory
        return state.withLock { s in
            var out = "# HELP tileserver_requests_total Requests answered, by route and status.\n# TYPE tileserver_requests_total counter\n"
            var requests = s.requests, duration = s.duration, cacheHits = cache.hits
            for tally in s.tallies { tally.add(to: &requests, &duration, cacheHits: &cacheHits) }
            for (route, statuses) in requests.sorted(by: { $0.key < $1.key }) {
                for (status, count) in statuses.sorted(by: { $0.key < $1.key }) {
                    out += "tileserver_requests_total{route=\"\(route)\",status=\"\(status)\"} \(count)\n"
                }
            }
            out += "# HELP tileserver_request_duration_seconds Time from a complete request head to the response queued.\n# TYPE tileserver_request_duration_seconds histogram\n"
            out += duration.render("tileserver_request_duration_seconds")
            out += "# HELP tileserver_tile_render_seconds Time to decode, resample and encode one tile.\n# TYPE tileserver_tile_render_seconds histogram\n"
            out += s.render.render("tileserver_tile_render_seconds")
            out += "# TYPE tileserver_tile_cache_hits_total counter\ntileserver_tile_cache_hits_total \(cacheHits)\n"
            out += "# TYPE tileserver_tile_cache_misses_total counter\ntileserver_tile_cache_misses_total \(cache.misses)\n"
            out += "# TYPE tileserver_tile_cache_evictions_total counter\ntileserver_tile_cache_evictions_total \(cache.evictions)\n"
            out += "# TYPE tileserver_tile_cache_bytes gauge\ntileserver_tile_cache_bytes \(cache.bytes)\n"
            out += "# TYPE tileserver_tile_cache_budget_bytes gauge\ntileserver_tile_cache_budget_bytes \(cache.budget)\n"
            out += "# TYPE tileserver_tile_cache_entries gauge\ntileserver_tile_cache_entries \(cache.entries)\n"
            out += "# TYPE tileserver_tiles_rendered_total counter\ntileserver_tiles_rendered_total \(tiles.tilesRendered)\n"
            out += "# TYPE tileserver_prefetch_dropped_total counter\ntileserver_prefetch_dropped_total \(s.prefetchDropped)\n"
            out += "# HELP tileserver_render_memory_bytes Pixel memory held by region renders, view images and whole decodes.\n"
            out += "# TYPE tileserver_render_memory_bytes gauge\ntileserver_render_memory_bytes \(renderMemory.inUse)\n"
            out += "# TYPE tileserver_render_memory_peak_bytes gauge\ntileserver_render_memory_peak_bytes \(renderMemory.peak)\n"
            out += "# TYPE tileserver_render_memory_budget_bytes gauge\ntileserver_render_memory_budget_bytes \(tiles.renderBudget)\n"
            out += "# TYPE tileserver_render_queue gauge\ntileserver_render_queue \(renderMemory.waiting)\n"
            out += "# TYPE tileserver_render_refused_total counter\ntileserver_render_refused_total \(renderMemory.refusals)\n"
            out += "# HELP tileserver_images Images in the library now.\n# TYPE tileserver_images gauge\ntileserver_images \(tiles.images)\n"
            out += "# HELP tileserver_broken_images Images whose file is damaged or unreadable (named in the log and in listings).\n"
            out += "# TYPE tileserver_broken_images gauge\ntileserver_broken_images \(tiles.brokenImages)\n"
            out += "# HELP tileserver_entry_index_bytes Memory held by JPEG entry indexes (--index-memory-mb).\n"
            out += "# TYPE tileserver_entry_index_bytes gauge\ntileserver_entry_index_bytes \(tiles.entryIndexes.held.bytes)\n"
            out += "# TYPE tileserver_entry_index_budget_bytes gauge\ntileserver_entry_index_budget_bytes \(tiles.entryIndexes.held.budget)\n"
            out += "# HELP tileserver_entry_indexes_kept_total Complete JPEG entry indexes written to the tile store.\n"
            out += "# TYPE tileserver_entry_indexes_kept_total counter\ntileserver_entry_indexes_kept_total \(tiles.entryIndexes.indexesKept)\n"
            out += "# HELP tileserver_entry_indexes_reused_total JPEG entry indexes taken from the tile store instead of scanning the master.\n"
            out += "# TYPE tileserver_entry_indexes_reused_total counter\ntileserver_entry_indexes_reused_total \(tiles.entryIndexes.indexesReused)\n"
            out += Self.render(tiles.store)
            out += Self.render(tiles.passes)
            out += "# TYPE tileserver_open_connections gauge\ntileserver_open_connections \(openConnections)\n"
            return out
        }
    }

    /// The persistent tile store's lines (none when it is off).
    private static func render(_ statistics: TileStore.Statistics?) -> String {
        guard let statistics else { return "" }
        let store = statistics.tiles
        var out = "# HELP tileserver_store_bytes Bytes of tiles in the persistent tile store.\n"
        out += "# TYPE tileserver_store_bytes gauge\ntileserver_store_bytes \(store.bytes)\n"
        out += "# TYPE tileserver_store_budget_bytes gauge\ntileserver_store_budget_bytes \(store.budget)\n"
        out += "# TYPE tileserver_store_entries gauge\ntileserver_store_entries \(store.entries)\n"
        out += "# TYPE tileserver_store_hits_total counter\ntileserver_store_hits_total \(store.hits)\n"
        out += "# TYPE tileserver_store_misses_total counter\ntileserver_store_misses_total \(store.misses)\n"
        out += "# TYPE tileserver_store_evictions_total counter\ntileserver_store_evictions_total \(store.evictions)\n"
        out += "# TYPE tileserver_store_writes_total counter\ntileserver_store_writes_total \(statistics.writes)\n"
        out += "# HELP tileserver_store_writes_dropped_total Tiles a shared store in object storage did not keep: the writes waiting were at their bound.\n"
        out += "# TYPE tileserver_store_writes_dropped_total counter\ntileserver_store_writes_dropped_total \(statistics.droppedWrites)\n"
        return out
    }

    /// Decode passes: how many ran and finished of each kind, repeats (a master read twice), pyramids complete.
    private static func render(_ passes: PassStatistics) -> String {
        var out = "# HELP tileserver_passes_started_total Decode passes started, by kind (1/8, full resolution, or a region of one level ahead of its full pass).\n"
        out += "# TYPE tileserver_passes_started_total counter\n"
        for name in ["1/8", "full", "region"] { out += "tileserver_passes_started_total{pass=\"\(name)\"} \(passes.started[name] ?? 0)\n" }
        out += "# TYPE tileserver_passes_completed_total counter\n"
        for name in ["1/8", "full"] { out += "tileserver_passes_completed_total{pass=\"\(name)\"} \(passes.completed[name] ?? 0)\n" }
        out += "# HELP tileserver_passes_repeated_total Passes run again for a version of an image already passed: masters read twice.\n"
        out += "# TYPE tileserver_passes_repeated_total counter\ntileserver_passes_repeated_total \(passes.repeated)\n"
        out += "# HELP tileserver_pyramids_completed_total Images whose every level was stored.\n"
        out += "# TYPE tileserver_pyramids_completed_total counter\ntileserver_pyramids_completed_total \(passes.pyramidsCompleted)\n"
        out += "# HELP tileserver_direct_decodes_total Tiles decoded on their own (pass queued or far behind, or tile evicted).\n"
        out += "# TYPE tileserver_direct_decodes_total counter\ntileserver_direct_decodes_total \(passes.directDecodes)\n"
        out += "# HELP tileserver_stored_jpeg_tiles_total Tiles served as the JPEG their tiled TIFF stores them as, neither decoded nor encoded.\n"
        out += "# TYPE tileserver_stored_jpeg_tiles_total counter\ntileserver_stored_jpeg_tiles_total \(passes.storedJPEGs)\n"
        out += "# HELP tileserver_joined_regions_total Regions of whole tiles answered by joining the tiles' JPEG coefficients, neither decoded nor encoded.\n"
        out += "# TYPE tileserver_joined_regions_total counter\ntileserver_joined_regions_total \(passes.joinedRegions)\n"
        out += "# HELP tileserver_jpeg_extracts_total Regions of large JPEGs decoded from their entry index instead of a skip through the rows above.\n"
        out += "# TYPE tileserver_jpeg_extracts_total counter\ntileserver_jpeg_extracts_total \(passes.jpegExtracts)\n"
        out += "# HELP tileserver_jpeg_scanned_eighths_total Large JPEGs whose 1/8 pass came from the scan that builds their entry index.\n"
        out += "# TYPE tileserver_jpeg_scanned_eighths_total counter\ntileserver_jpeg_scanned_eighths_total \(passes.jpegEighthsScanned)\n"
        out += "# TYPE tileserver_passes_running gauge\ntileserver_passes_running \(passes.running)\n"
        out += "# TYPE tileserver_passes_queued gauge\ntileserver_passes_queued \(passes.queued)\n"
        out += "# TYPE tileserver_region_passes_running gauge\ntileserver_region_passes_running \(passes.regionsRunning)\n"
        return out
    }
}
