import FoundationEssentials
import POSIXSupport
import Synchronization
import ImageCodecs

#if canImport(Glibc)
import Glibc
import TileGeometry
#endif

/// Encoded tiles on disk, one file a tile, bounded by bytes with least-recently-used eviction, surviving restarts:
/// the persistent half of the tile path, where a decode pass puts every tile it cuts.
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
    }

    package let directory: String
    private let index: LRUCache<String, Int>
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let writes = Atomic<Int>(0)
    private let temporaryNames = Atomic<Int>(0)
    private let scanned = Atomic<Bool>(false)

    /// A store in `directory` (created if missing) holding at most `budget` bytes of tiles.
    public init(directory: String, budget: Int) throws {
        self.directory = directory
        index = LRUCache(budget: budget, cost: { $0 })
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw TileStoreError.cannotCreate(directory: directory, reason: "\(error)")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw TileStoreError.cannotCreate(directory: directory, reason: String(cString: strerror(errno)))
        }
    }

    /// Scans the directory on a background thread: counts every tile into the budget (evicting the oldest
    /// beyond it), removes temporary files of writers no longer running, and hands `interrupted` the passes
    /// that started but never finished (a crash or a kill), so they can be run again.
    package func startScan(interrupted: @escaping @Sendable ([StoredPass]) -> Void = { _ in }) {
        startDetachedThread { [self] in
            lowerCurrentThreadPriority()
            let found = StoreScan(directory: directory).run()
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
        return Statistics(tiles: tiles, writes: writes.load(ordering: .relaxed))
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
        guard let bytes = Self.contents(directory + "/" + name) else {
            misses.add(1, ordering: .relaxed)
            index.remove(name)
            return nil
        }
        guard format.isComplete(bytes) else {
            misses.add(1, ordering: .relaxed)
            index.remove(name)
            unlink(directory + "/" + name)
            return nil
        }
        hits.add(1, ordering: .relaxed)
        if index.value(for: name) == nil { evict(index.insert(bytes.count, for: name)) }
        return EncodedTile(bytes: bytes, format: format, version: version)
    }

    /// Writes the tile under a temporary name, renames it into place, then evicts over the budget. A store that
    /// cannot write is only a slower store: failures are dropped.
    package func write(_ tile: EncodedTile, as name: String) {
        guard (try? writeFile(tile.bytes, as: name)) != nil else { return }
        writes.add(1, ordering: .relaxed)
        evict(index.insert(tile.bytes.count, for: name))
    }

    /// Whether `name` (a marker, not a tile) exists.
    package func has(_ name: String) -> Bool { Self.exists(directory + "/" + name) }

    /// Writes an empty marker file `name` (crash-safe like a tile); markers take no budget.
    package func mark(_ name: String) {
        _ = try? writeFile([], as: name)
    }

    /// Forgets and deletes every tile under the folder `prefix` (an image id, or one version of it).
    func purge(prefix: String) {
        index.removeAll { $0.hasPrefix(prefix + "/") }
        try? FileManager.default.removeItem(atPath: directory + "/" + prefix)
    }

    private func evict(_ evicted: [(String, Int)]) {
        for (name, _) in evicted { unlink(directory + "/" + name) }
    }

    private func writeFile(_ bytes: [UInt8], as name: String) throws {
        let final = directory + "/" + name
        let folder = PathText.parent(of: final)
        let temporary = folder + "/.tmp-\(getpid())-\(temporaryNames.add(1, ordering: .relaxed).newValue)"
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw SyscallError(call: "open(\(temporary))", errno: errno) }
        do {
            defer { close(fd) }
            var done = 0
            try bytes.withUnsafeBytes { buf in
                while done < buf.count {
                    done += try syscall("write(\(temporary))") { Glibc.write(fd, buf.baseAddress! + done, buf.count - done) }
                }
            }
        }
        do { try syscall("rename(\(temporary))") { rename(temporary, final) } } catch {
            unlink(temporary)
            throw error
        }
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The whole file, or nil when it cannot be read.
    private static func contents(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size > 0, status.st_size < 64 << 20 else { return nil }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }
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
