import HTTPTransport
import POSIXSupport
import Library
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// Answers a GET or HEAD of a tile that is in the memory cache straight from the request's bytes, on its event
/// loop, allocating nothing: the URL read in place (`TileTarget`), the image found in a small table of this
/// loop's own, the cache key made on the stack, the head written into a buffer this object owns, the access-log
/// line formatted into the log's batch. It gives the same answer the routes would (`TileHandler`, through the
/// CORS and observation middleware): same status, header fields, body, metrics and log line. Anything else —
/// a miss, an image whose file's look is overdue, another version, another URL — it declines, and the routes
/// answer. One per event loop, never shared.
final class CachedTileResponder: FastResponder {
    private let tiles: TileService
    private let library: ImageLibrary
    /// CORS and `Cache-Control` lines of tiles asked for without a version, and of those asked for by theirs.
    private let unversionedFields: UnsafeRawBufferPointer
    private let versionedFields: UnsafeRawBufferPointer
    /// Where each answer's `Content-Type` and `ETag` lines are written.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
    /// An image this loop looked up, with the generation and version it had when last asked.
    private struct Known {
        let id: [UInt8]
        let image: PyramidImage
        var generation = 0
        var version = ""
    }

    /// Images this loop looked up by id, valid while the library's generation is `known`.
    private var images: [Known] = []
    private var defaultImage: Known?
    private var known = -1
    /// This loop's counts for `/metrics`, and its own batch of access-log lines: nothing shared with another
    /// loop is locked per answer but the tile cache.
    private let tally: Metrics.Tally
    private let log: AccessLog.Shard?
    /// The tiles this loop answered last (`RecentTiles`).
    private var recent = RecentTiles()
    private static let remembered = 64

    /// `cacheControl`: the `Cache-Control` of tiles asked for without a version (`Services.tileCacheControl`).
    init(tiles: TileService, library: ImageLibrary, metrics: Metrics, accessLog: AccessLog?, cacheControl: HTTPHeader) {
        self.tiles = tiles
        self.library = library
        tally = metrics.makeTally()
        log = accessLog?.makeShard()
        func lines(_ headers: [HTTPHeader]) -> UnsafeRawBufferPointer {
            let text = HTTPHeader.lines(headers)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: text.count, alignment: 1)
            buffer.copyBytes(from: text)
            return UnsafeRawBufferPointer(buffer)
        }
        unversionedFields = lines([CORSMiddleware.header, cacheControl])
        versionedFields = lines([CORSMiddleware.header, VersionCheck.immutable])
        images.reserveCapacity(Self.remembered)
    }

    deinit {
        unversionedFields.deallocate()
        versionedFields.deallocate()
        scratch.deallocate()
    }

    func answer(_ request: RequestView, started: Double, send: (FastResponse) -> Void) -> Bool {
        let isHead = request.isHead
        guard isHead || request.isGet, let target = TileTarget(request.target),
              let (image, generation, version) = image(target, in: request.target) else { return false }
        var versioned = false
        if let asked = target.version {
            guard Self.same(UnsafeRawBufferPointer(rebasing: request.target[asked]), version) else { return false }
            versioned = true
        }
        let key = TileKey(image: image.id, generation: generation, tile: target.tile, format: target.format ?? tiles.options.format)
        let tile: EncodedTile
        let ownCopy: Bool
        if let recent = recent.tile(key, removals: tiles.cache.removals) {
            (tile, ownCopy) = (recent, true)
        } else {
            guard let found = tiles.cache.value(for: key, countingMiss: false) else { return false }
            recent.keep(found, for: key)
            (tile, ownCopy) = (found, false)
        }
        let notModified = request.ifNoneMatch.map { HTTPHeader.ifNoneMatch($0, names: tile.etag) } ?? false
        let fields = headerFields(of: tile)
        let seconds = MonotonicClock.seconds() - started
        tally.count(notModified: notModified, seconds: seconds, cacheHit: ownCopy)
        log?.record(method: request.method, target: request.target, status: notModified ? 304 : 200,
                    bodyBytes: notModified ? 0 : tile.bytes.count, seconds: seconds, cache: .hit)
        tile.bytes.withUnsafeBytes { body in
            send(FastResponse(notModified: notModified, fields: fields, moreFields: versioned ? versionedFields : unversionedFields, body: body))
        }
        return true
    }

    /// The image the target names and the generation and version it has now, from this loop's table: looked
    /// up in the library (and remembered) the first time and after the library changed, its version asked
    /// again when its generation moved. Nil when the general path must answer (no such image, a file to look at).
    private func image(_ target: TileTarget, in bytes: UnsafeRawBufferPointer) -> (PyramidImage, Int, String)? {
        let generation = library.generation
        if generation != known {
            images.removeAll(keepingCapacity: true)
            defaultImage = nil
            known = generation
        }
        guard let range = target.id else {
            if defaultImage == nil {
                guard let id = library.firstID, let image = library.image(id) else { return nil }
                defaultImage = Known(id: [], image: image)
            }
            return Self.current(&defaultImage!)
        }
        let id = UnsafeRawBufferPointer(rebasing: bytes[range])
        for k in images.indices where images[k].id.count == id.count {
            if images[k].id.withUnsafeBytes({ memcmp($0.baseAddress!, id.baseAddress!, id.count) == 0 }) { return Self.current(&images[k]) }
        }
        guard let image = library.image(String(decoding: id, as: UTF8.self)) else { return nil }
        if images.count == Self.remembered { images.removeAll(keepingCapacity: true) }
        images.append(Known(id: Array(id), image: image))
        return Self.current(&images[images.count - 1])
    }

    /// `known`'s image, generation and version, refreshed if its generation moved; a due look at its file is
    /// handed to `FileChecks`.
    private static func current(_ known: inout Known) -> (PyramidImage, Int, String)? {
        let image = known.image
        switch image.look {
        case .overdue: return nil
        case .due: FileChecks.shared.request(image)
        case .recent: break
        }
        if image.publishedGeneration != known.generation || known.generation == 0 {
            guard let (generation, version) = image.knownVersion() else { return nil }
            known.generation = generation
            known.version = version
        }
        return (image, known.generation, known.version)
    }

    /// `Content-Type` and `ETag` of `tile`, written into the scratch buffer.
    private func headerFields(of tile: EncodedTile) -> UnsafeRawBufferPointer {
        var fields = HeadWriter(into: scratch)
        fields.put("Content-Type: ")
        fields.put(tile.format.mimeType)
        fields.put("\r\nETag: ")
        fields.put(tile.etag)
        fields.put("\r\n")
        return fields.written
    }

    /// Whether `bytes` are `text`'s UTF-8.
    private static func same(_ bytes: UnsafeRawBufferPointer, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.count == bytes.count && ($0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0) }
    }
}
