import CImageIO
import POSIXSupport

/// The JPEG entry indexes one server keeps (`JPEGEntryIndex`), least recently used dropped first within `budget`
/// bytes, and what they did. Owned by whoever makes the `ImageLimits` its sources are opened with (the server
/// declares the budget beside its other memory budgets, `--index-memory-mb`), so its memory and counts are read
/// with the tile service's statistics, not from process-wide state. The 640-megapixel 4:4:4 master of
/// `bench/make-collection.sh` has an index of 5.1 MB (measured; by arithmetic half that at 4:2:0), so the default
/// budget of 64 MiB holds a dozen such masters; a dropped one is scanned again.
package final class EntryIndexes: Sendable {
    /// What the indexes hold and have done, read together.
    package struct Statistics: Sendable, Equatable {
        /// The indexes' memory, budget and lookups.
        package var held = CacheStatistics()
        /// Extracts made (regions cut out of a file as small JPEGs).
        package var extracts = 0
        /// Rows of extracts whose bits were copied whole between two entries, no symbol decoded.
        package var rowsCopiedWhole = 0
        /// Decodes at 1/8 made by an index's scan.
        package var eighthsScanned = 0
        /// Complete indexes handed to the keeper, and indexes taken from it instead of a scan.
        package var indexesKept = 0
        package var indexesReused = 0
    }

    /// A cache entry: the index, or nil for a file the index cannot enter (progressive, arithmetic, …).
    private struct Entry: Sendable {
        let index: JPEGEntryIndex?
    }

    package static let defaultBudget = 64 << 20
    private let cache: LRUCache<String, Entry>
    /// Where complete indexes are kept across restarts (the tile store), when there is one.
    private let keeper = Locked<(any EntryIndexKeeper)?>(nil)
    private let creating = Locked(())
    private let counts = Locked(Statistics())

    package init(budget: Int = EntryIndexes.defaultBudget) {
        cache = LRUCache(budget: budget, cost: { $0.index?.bytes ?? 64 })
    }

    /// Whether complete indexes are kept (and so may be taken from the keeper instead of scanned).
    var hasKeeper: Bool { keeper.withLock { $0 != nil } }

    /// Keeps complete indexes in `keeper`, and takes them from it before scanning a file.
    package func keep(in keeper: any EntryIndexKeeper) {
        self.keeper.withLock { $0 = keeper }
    }

    /// The name a file's index is kept under: its version (size, time, ETag hash) and a hash of its path.
    static func keptName(_ path: String, _ info: ImageInfo) -> String {
        var hash = FNV1a()
        hash.add(words: Array(path.utf8))
        return "entry-indexes/\(hash.hex12)-\(info.fileSize)-\(info.modified)-\(info.tag).jidx"
    }

    /// Hands a complete index to the keeper (once per index).
    func keep(_ index: JPEGEntryIndex) {
        guard let keeper = keeper.withLock({ $0 }), let bytes = index.exported() else { return }
        keeper.save(index.keptName, bytes)
        counted { $0.indexesKept += 1 }
    }

    /// The index of the file `info` describes, from the cache or made now (its header read, its entries taken
    /// from the keeper when it holds them); nil when the file is not one it can enter.
    func of(_ path: String, _ info: ImageInfo, _ files: ImageFiles) -> JPEGEntryIndex? {
        let key = Self.key(path, info)
        if let entry = cache.value(for: key) { return entry.index }
        return creating.withLock { _ -> JPEGEntryIndex? in
            if let entry = cache.value(for: key, countingMiss: false) { return entry.index }
            var st = tsio_status()
            let handle = (try? files.open(path)).flatMap { input in input.withRaw { tsio_jidx_open($0, &st) } }
            // A header the index reads otherwise than libjpeg (bytes between markers, which libjpeg steps over and
            // the index takes for a segment) describes another frame: such a file is not entered.
            let index = handle.map { JPEGEntryIndex(handle: $0, path: path, files: files, keptName: Self.keptName(path, info), owner: self) }
                .flatMap { $0.frameWidth == info.storedWidth && $0.frameHeight == info.storedHeight ? $0 : nil }
            if let index, let kept = keeper.withLock({ $0 })?.load(index.keptName), index.adopt(kept) {
                counted { $0.indexesReused += 1 }
            }
            cache.insert(Entry(index: index), for: key)
            return index
        }
    }

    /// The index of the file `info` describes if one is made already (nothing is read, nothing counted).
    func existing(_ path: String, _ info: ImageInfo) -> JPEGEntryIndex? {
        cache.value(for: Self.key(path, info), countingMiss: false, countingHit: false)?.index
    }

    private static func key(_ path: String, _ info: ImageInfo) -> String { "\(info.fileSize)/\(info.modified)/\(path)" }

    func counted(_ change: (inout Statistics) -> Void) { counts.withLock(change) }

    /// The memory held and the counts, now.
    package func statistics() -> Statistics {
        var now = counts.withLock { $0 }
        now.held = cache.statistics
        return now
    }
}
