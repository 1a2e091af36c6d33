import POSIXSupport
import ImageCodecs
import TileGeometry

#if canImport(Glibc)
import Glibc
#endif

/// One event loop's way to the cached tiles, for answers made on the loop itself (the fast tile path): the one
/// call `cachedTile` finds the image by the id's bytes in a small table of this loop's own, checks that its
/// version is the one asked for and that the last look at its file is recent enough (handing a due look to
/// `FileChecks`), and takes the tile from this loop's recent copies or the memory cache. It reads no file, takes
/// no lock on a hit in the loop's copies, and allocates nothing once the image is in its table. Not `Sendable`:
/// one per event loop, never shared.
package final class CachedTileReader {
    /// A tile found, whether it came from this loop's own copies (no shared lock taken), and its image: who may
    /// have it is the caller's to decide.
    package struct Found {
        package let tile: EncodedTile
        package let fromLoopCopy: Bool
        package let image: PyramidImage
    }

    /// An image this loop looked up, with the generation and version it had when last asked.
    private struct Known {
        let id: [UInt8]
        let image: PyramidImage
        var generation = 0
        var version = ""
        var geometry = PyramidGeometry(width: 1, height: 1, tileSize: 1)
    }

    private let service: TileService
    /// Images this loop looked up by id, valid while the directory's generation is `known`.
    private var images: [Known] = []
    private var defaultImage: Known?
    private var known = -1
    private var recent = RecentTiles()
    private static let remembered = 64

    package init(_ service: TileService) {
        self.service = service
        images.reserveCapacity(Self.remembered)
    }

    /// Tile `tile` of the image whose id is `id` (the directory's first image when nil), as `format` (the tile
    /// format setting when nil), if the memory cache holds it for the image's current version and `version`, when
    /// given, names that version. Nil when the general path must answer: no such image or tile cached, another
    /// version, or a look at the file that is overdue.
    package func cachedTile(id: UnsafeRawBufferPointer?, tile: TileCoordinate, format: ImageFormat?,
                            version asked: UnsafeRawBufferPointer?) -> Found? {
        cachedTile(id: id, format: format, version: asked) { _ in tile }
    }

    /// The same for a tile the image's geometry picks (`tile` nil: not a tile of it; an IIIF region and size).
    package func cachedTile(id: UnsafeRawBufferPointer?, format: ImageFormat?, version asked: UnsafeRawBufferPointer?,
                            tile pick: (PyramidGeometry) -> TileCoordinate?) -> Found? {
        guard let (image, generation, version, geometry) = image(id), let tile = pick(geometry) else { return nil }
        if let asked, !Self.same(asked, version) { return nil }
        let key = TileKey(image: image.id, generation: generation, tile: tile, format: format ?? service.options.format)
        if let copy = recent.tile(key, removals: service.cache.removals) { return Found(tile: copy, fromLoopCopy: true, image: image) }
        guard let found = service.cache.value(for: key, countingMiss: false) else { return nil }
        recent.keep(found, for: key)
        return Found(tile: found, fromLoopCopy: false, image: image)
    }

    /// The image the id names and the generation and version it has now, from this loop's table: looked up in the
    /// directory (and remembered) the first time and after the directory changed, its version asked again when
    /// its generation moved.
    private func image(_ id: UnsafeRawBufferPointer?) -> (PyramidImage, Int, String, PyramidGeometry)? {
        let directory = service.images
        let generation = directory.generation
        if generation != known {
            images.removeAll(keepingCapacity: true)
            defaultImage = nil
            known = generation
        }
        guard let id else {
            if defaultImage == nil {
                guard let first = directory.firstID, let image = directory.image(first) else { return nil }
                defaultImage = Known(id: [], image: image)
            }
            return current(&defaultImage!)
        }
        for k in images.indices where images[k].id.count == id.count {
            if images[k].id.withUnsafeBytes({ memcmp($0.baseAddress!, id.baseAddress!, id.count) == 0 }) {
                return current(&images[k])
            }
        }
        guard let decoded = Self.decodedID(id), let image = directory.image(decoded) else { return nil }
        if images.count == Self.remembered { images.removeAll(keepingCapacity: true) }
        images.append(Known(id: Array(id), image: image))
        return current(&images[images.count - 1])
    }

    /// `known`'s image, generation and version, refreshed if its generation moved; a due look at its file is
    /// handed to the file checks.
    private func current(_ known: inout Known) -> (PyramidImage, Int, String, PyramidGeometry)? {
        let image = known.image
        let checks = service.fileChecks
        switch image.look {
        case .overdue: return nil
        case .due: checks.request(image)
        case .recent: break
        }
        if image.publishedGeneration != known.generation || known.generation == 0 {
            guard let (generation, version, geometry) = image.knownVersion() else { return nil }
            known.generation = generation
            known.version = version
            known.geometry = geometry
        }
        return (image, known.generation, known.version, known.geometry)
    }

    /// An id as sent, its escapes decoded as the routes decode them (`PathText.percentDecoded`); nil for a
    /// malformed escape or bytes that are not UTF-8, which name no image.
    package static func decodedID(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(validating: bytes, as: UTF8.self) }
        return PathText.percentDecoded(bytes).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Whether `bytes` are `text`'s UTF-8.
    private static func same(_ bytes: UnsafeRawBufferPointer, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.count == bytes.count && ($0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0) }
    }
}
