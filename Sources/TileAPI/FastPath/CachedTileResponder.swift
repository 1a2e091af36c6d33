import HTTPTransport
import POSIXSupport
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
    private let metrics: Metrics
    private let accessLog: AccessLog?
    /// CORS and `Cache-Control` lines of tiles asked for without a version, and of those asked for by theirs.
    private let unversionedFields: UnsafeRawBufferPointer
    private let versionedFields: UnsafeRawBufferPointer
    /// Where each answer's `Content-Type` and `ETag` lines are written.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
    /// Images this loop looked up by id, valid while the library's generation is `known`.
    private var images: [(id: [UInt8], image: PyramidImage)] = []
    private var defaultImage: PyramidImage?
    private var known = -1
    private static let remembered = 64

    init(tiles: TileService, metrics: Metrics, accessLog: AccessLog?, maxAge: Int) {
        self.tiles = tiles
        self.metrics = metrics
        self.accessLog = accessLog
        let cors = CORSMiddleware.header
        func lines(_ headers: [HTTPHeader]) -> UnsafeRawBufferPointer {
            let text = Array(headers.map { "\($0.name): \($0.value)\r\n" }.joined().utf8)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: text.count, alignment: 1)
            buffer.copyBytes(from: text)
            return UnsafeRawBufferPointer(buffer)
        }
        unversionedFields = lines([cors, HTTPHeader(name: "Cache-Control", value: "public, max-age=\(maxAge)")])
        versionedFields = lines([cors, VersionCheck.immutable])
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
              let image = image(target, in: request.target), let (generation, version, due) = image.knownVersion() else { return false }
        if due { FileChecks.shared.request(image) }
        var versioned = false
        if let asked = target.version {
            guard Self.same(UnsafeRawBufferPointer(rebasing: request.target[asked]), version) else { return false }
            versioned = true
        }
        let key = TileKey(image: image.id, generation: generation, tile: target.tile, format: target.format ?? tiles.options.format)
        guard let tile = tiles.cache.value(for: key, countingMiss: false) else { return false }
        let notModified = request.ifNoneMatch.map { Self.matches($0, etag: tile.etag) } ?? false
        let fields = headerFields(of: tile)
        let seconds = MonotonicClock.seconds() - started
        metrics.cachedTile(notModified: notModified, seconds: seconds)
        accessLog?.record(method: request.method, target: request.target, status: notModified ? 304 : 200,
                          bodyBytes: notModified ? 0 : tile.bytes.count, seconds: seconds, cache: .hit)
        tile.bytes.withUnsafeBytes { body in
            send(FastResponse(notModified: notModified, fields: fields, moreFields: versioned ? versionedFields : unversionedFields, body: body))
        }
        return true
    }

    /// The image the target names, from this loop's table; looked up in the library (and remembered) the first
    /// time, and again after the library changed.
    private func image(_ target: TileTarget, in bytes: UnsafeRawBufferPointer) -> PyramidImage? {
        let generation = tiles.library.generation
        if generation != known {
            images.removeAll(keepingCapacity: true)
            defaultImage = nil
            known = generation
        }
        guard let range = target.id else {
            if defaultImage == nil { defaultImage = tiles.library.firstID.flatMap { tiles.library.image($0) } }
            return defaultImage
        }
        let id = UnsafeRawBufferPointer(rebasing: bytes[range])
        for entry in images where entry.id.count == id.count {
            if entry.id.withUnsafeBytes({ memcmp($0.baseAddress!, id.baseAddress!, id.count) == 0 }) { return entry.image }
        }
        guard let image = tiles.library.image(String(decoding: id, as: UTF8.self)) else { return nil }
        if images.count == Self.remembered { images.removeAll(keepingCapacity: true) }
        images.append((Array(id), image))
        return image
    }

    /// `Content-Type` and `ETag` of `tile`, written into the scratch buffer.
    private func headerFields(of tile: EncodedTile) -> UnsafeRawBufferPointer {
        var at = 0
        func put(_ bytes: UnsafeRawBufferPointer) {
            let n = min(bytes.count, scratch.count - at)
            if n > 0 { (scratch.baseAddress! + at).copyMemory(from: bytes.baseAddress!, byteCount: n) }
            at += n
        }
        func put(_ text: StaticString) { put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        put("Content-Type: ")
        switch tile.format {
        case .jpeg: put("image/jpeg")
        case .png: put("image/png")
        case .webp: put("image/webp")
        }
        put("\r\nETag: ")
        var etag = tile.etag
        etag.withUTF8 { put(UnsafeRawBufferPointer($0)) }
        put("\r\n")
        return UnsafeRawBufferPointer(rebasing: scratch[..<at])
    }

    /// Whether `bytes` are `text`'s UTF-8.
    private static func same(_ bytes: UnsafeRawBufferPointer, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.count == bytes.count && ($0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0) }
    }

    /// `If-None-Match` as `HTTPResponse.conditional` reads it: `*`, the tag, or its weak form, among the elements.
    private static func matches(_ condition: UnsafeRawBufferPointer, etag: String) -> Bool {
        var found = false
        HTTPParser.forEachElement(of: 0 ..< condition.count, in: condition) { element in
            let tag = UnsafeRawBufferPointer(rebasing: condition[element])
            if found { return }
            if tag.count == 1 && tag[0] == UInt8(ascii: "*") || same(tag, etag) {
                found = true
            } else if tag.count > 2, tag[0] == UInt8(ascii: "W"), tag[1] == UInt8(ascii: "/"), same(UnsafeRawBufferPointer(rebasing: tag[2...]), etag) {
                found = true
            }
        }
        return found
    }
}
