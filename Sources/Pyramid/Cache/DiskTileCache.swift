import Foundation
import POSIXSupport

/// Encoded tiles on disk, bounded by bytes with least-recently-used eviction, surviving restarts.
///
/// Files are named by what determines their bytes (image id, the source's size and modification time, tile
/// size, quality, level, column, row, format), so a changed source or setting never meets old tiles. Each file
/// is written to a temporary name and renamed into place; at start the directory is scanned (oldest
/// modification first) and leftover temporary files are removed.
public final class DiskTileCache: Sendable {
    public let directory: String
    private let index: LRUCache<String, Int>

    public init(directory: String, budget: Int) throws {
        self.directory = directory
        index = LRUCache(budget: budget, cost: { $0 })
        let fm = FileManager.default
        do { try fm.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw ImageSourceError.cannotOpen(path: directory, reason: "cannot create the cache directory: \(error.localizedDescription)")
        }
        var found: [(path: String, size: Int, modified: Date)] = []
        let walker = fm.enumerator(atPath: directory)
        while let item = walker?.nextObject() as? String {
            let full = directory + "/" + item
            guard let attributes = try? fm.attributesOfItem(atPath: full), attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            if (item as NSString).lastPathComponent.hasPrefix(".tmp-") {
                try? fm.removeItem(atPath: full)
                continue
            }
            found.append((item, (attributes[.size] as? Int) ?? 0, (attributes[.modificationDate] as? Date) ?? .distantPast))
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            for (evicted, _) in index.insert(file.size, for: file.path) { unlink(directory + "/" + evicted) }
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
        let folder = (final as NSString).deletingLastPathComponent
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
    public func purge(prefix: String) {
        index.removeAll { $0.hasPrefix(prefix + "/") }
        try? FileManager.default.removeItem(atPath: directory + "/" + prefix)
    }
}
