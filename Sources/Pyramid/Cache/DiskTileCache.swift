import FoundationEssentials
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Encoded tiles on disk, bounded by bytes with least-recently-used eviction, surviving restarts.
///
/// Files are named by what determines their bytes (image id, the source's size and modification time, tile
/// size, quality, level, column, row, format), so a changed source or setting never meets old tiles. Each file
/// is written to a temporary name and renamed into place; at start the directory is scanned (oldest
/// modification first) and leftover temporary files are removed.
public final class DiskTileCache: Sendable {
    let directory: String
    private let index: LRUCache<String, Int>

    public init(directory: String, budget: Int) throws {
        self.directory = directory
        index = LRUCache(budget: budget, cost: { $0 })
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw ImageSourceError.cannotOpen(path: directory, reason: "cannot create the cache directory: \(error)")
        }
        var found: [(path: String, size: Int, modified: Int64)] = []
        Self.walk(directory, relative: "") { relative, status in
            if PathText.lastComponent(of: relative).hasPrefix(".tmp-") {
                unlink(directory + "/" + relative)
            } else {
                found.append((relative, Int(status.st_size), Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)))
            }
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            for (evicted, _) in index.insert(file.size, for: file.path) { unlink(directory + "/" + evicted) }
        }
    }

    /// Every regular file below `directory/relative`, with its `lstat`.
    private static func walk(_ directory: String, relative: String, _ visit: (String, stat) -> Void) {
        for entry in DirectoryEntries.list(relative.isEmpty ? directory : directory + "/" + relative) ?? [] {
            let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
            var status = stat()
            guard lstat(directory + "/" + path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: walk(directory, relative: path, visit)
            case S_IFREG: visit(path, status)
            default: continue
            }
        }
    }

    public var statistics: CacheStatistics { index.statistics }

    /// The folder of one version of an image's tiles under one setting.
    public static func folder(image: String, info: ImageInfo, options: TileOptions) -> String {
        "\(folder(image: image))/\(info.fileSize)-\(info.modified)-t\(options.tileSize)o\(options.overlap)q\(options.quality)"
    }

    /// The folder of all of an image's tiles: its id with `/` written `%2F`, so `a` and `a/b` never nest (ids
    /// hold no `%`).
    public static func folder(image: String) -> String {
        image.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
    }

    /// The relative path of a tile.
    public static func name(image: String, info: ImageInfo, options: TileOptions, tile: TileCoordinate, format: ImageFormat) -> String {
        folder(image: image, info: info, options: options) + "/\(tile.level)/\(tile.x)_\(tile.y).\(format.fileExtension)"
    }

    public func read(_ name: String, format: ImageFormat, version: String = "") -> EncodedTile? {
        guard index.value(for: name) != nil else { return nil }
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            index.removeAll { $0 == name }
            return nil
        }
        return EncodedTile(bytes: [UInt8](data), format: format, version: version)
    }

    /// Writes the tile under a temporary name, renames it into place, then evicts over the budget.
    public func write(_ tile: EncodedTile, as name: String) {
        let final = directory + "/" + name
        let folder = PathText.parent(of: final)
        let temporary = folder + "/.tmp-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(tile.bytes).write(to: URL(fileURLWithPath: temporary))
            try syscall("rename(\(temporary))") { rename(temporary, final) }
        } catch {
            unlink(temporary)
            return // a cache that cannot write is only a slower cache
        }
        for (evicted, _) in index.insert(tile.bytes.count, for: name) { unlink(directory + "/" + evicted) }
    }

    /// Forgets and deletes every tile under the folder `prefix` (an image id, or one version of it).
    func purge(prefix: String) {
        index.removeAll { $0.hasPrefix(prefix + "/") }
        try? FileManager.default.removeItem(atPath: directory + "/" + prefix)
    }
}
