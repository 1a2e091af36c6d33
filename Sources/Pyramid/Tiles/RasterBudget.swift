import POSIXSupport

/// Bounds the disk space decode passes use across all images: admitting a new raster releases the least
/// recently read finished ones until the total fits. Entries are weak, so a raster its image has dropped
/// (file changed, purged) stops counting as soon as its last reader lets go and its file vanishes.
final class RasterBudget: Sendable {
    private struct Entry {
        weak var raster: DecodedRaster?
        let bytes: Int
        var lastUse: Int
        let release: @Sendable () -> Void
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var tick = 0
    }

    public let budget: Int
    private let state = Locked(State())

    public init(budget: Int) {
        self.budget = budget
    }

    /// Bytes of live rasters.
    var bytesInUse: Int {
        state.withLock { s in s.entries.values.reduce(0) { $0 + ($1.raster == nil ? 0 : $1.bytes) } }
    }

    func admit(_ raster: DecodedRaster, release: @escaping @Sendable () -> Void) {
        let victims = state.withLock { s -> [@Sendable () -> Void] in
            s.entries = s.entries.filter { $0.value.raster != nil }
            s.tick += 1
            s.entries[ObjectIdentifier(raster)] = Entry(raster: raster, bytes: raster.byteSize, lastUse: s.tick, release: release)
            var total = s.entries.values.reduce(0) { $0 + $1.bytes }
            var victims: [@Sendable () -> Void] = []
            let candidates = s.entries.filter { $0.key != ObjectIdentifier(raster) }.sorted { $0.value.lastUse < $1.value.lastUse }
            for (key, entry) in candidates where total > budget {
                guard let r = entry.raster, r.isComplete || r.hasFailed else { continue }
                total -= entry.bytes
                victims.append(entry.release)
                s.entries[key] = nil
            }
            return victims
        }
        for release in victims { release() }
    }

    func touch(_ raster: DecodedRaster) {
        state.withLock { s in
            s.tick += 1
            s.entries[ObjectIdentifier(raster)]?.lastUse = s.tick
        }
    }
}
