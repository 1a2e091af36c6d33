import HTTPTransport
import POSIXSupport
import Pyramid

/// Answers a GET or HEAD of a tile that is in the memory cache straight from the request's bytes, on its event
/// loop, allocating nothing: the URL read in place (`TileTarget`), the tile found by the pyramid's one call for
/// this (`CachedTileReader`), the head written into a buffer this object owns, the access-log line formatted into
/// the log's batch. It gives the same answer the routes would (`TileHandler`, through the
/// CORS and observation middleware): same status, header fields, body, metrics and log line. Anything else —
/// a miss, an image whose file's look is overdue, another version, another URL — it declines, and the routes
/// answer. One per event loop, never shared.
final class CachedTileResponder: FastResponder {
    private let reader: CachedTileReader
    /// CORS and `Cache-Control` lines (and IIIF's profile `Link`), by `fieldsIndex`: asked for without a version
    /// or by theirs, for everyone or only its viewer (`AccessControl.personal`'s fields), by a tile URL or IIIF.
    private let moreFields: [UnsafeRawBufferPointer]
    /// Access control: a tile of an image not open to everyone is answered here only to a signed-in user whose
    /// session cookie the routes would let have it whole.
    private let access: AccessControl?
    /// This loop's last signed-in decision (a viewer asks for many tiles of one image with one cookie).
    private var signedIn = SignedInMemo()
    /// Which images this loop was told are for everyone, under which policy.
    private var openImages = OpenImages()
    /// Where each answer's `Content-Type` and `ETag` lines are written.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
    /// This loop's counts for `/metrics`, and its own batch of access-log lines: nothing shared with another
    /// loop is locked per answer but the tile cache.
    private let tally: Metrics.Tally
    private let log: AccessLog.Shard?

    /// `cacheControl`: the `Cache-Control` of tiles asked for without a version (`Services.tileCacheControl`).
    init(tiles: TileService, metrics: Metrics, accessLog: AccessLog?, cacheControl: HTTPHeader, access: AccessControl? = nil) {
        reader = CachedTileReader(tiles)
        self.access = access
        tally = metrics.makeTally()
        log = accessLog?.makeShard()
        func lines(_ headers: [HTTPHeader]) -> UnsafeRawBufferPointer {
            let text = HTTPHeader.lines(headers)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: text.count, alignment: 1)
            buffer.copyBytes(from: text)
            return UnsafeRawBufferPointer(buffer)
        }
        var more: [UnsafeRawBufferPointer] = []
        for index in 0 ..< 8 {
            let (personal, versioned, iiif) = (index & 4 != 0, index & 2 != 0, index & 1 != 0)
            let headers = [versioned ? VersionCheck.immutable : cacheControl] + (iiif ? [IIIFHandler.profileLink] : [])
            let response = HTTPResponse(contentType: "", body: [], headers: headers)
            more.append(lines([CORSMiddleware.header] + (personal ? AccessControl.personal(response) : response).headers))
        }
        moreFields = more
    }

    private static func fieldsIndex(personal: Bool, versioned: Bool, iiif: Bool) -> Int {
        (personal ? 4 : 0) | (versioned ? 2 : 0) | (iiif ? 1 : 0)
    }

    deinit {
        for fields in moreFields { fields.deallocate() }
        scratch.deallocate()
    }

    func answer(_ request: RequestView, started: Double, send: (FastResponse) -> Void) -> Bool {
        let isHead = request.isHead
        guard isHead || request.isGet, let target = TileTarget(request.target) else { return false }
        let bytes = request.target
        let id = target.id.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
        let version = target.version.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
        let found = if let iiif = target.iiif {
            reader.cachedTile(id: id, format: target.format, version: version) { TileTarget.tile(iiif, in: $0) }
        } else {
            reader.cachedTile(id: id, tile: target.tile, format: target.format, version: version)
        }
        guard let found else { return false }
        var user: String?
        if let access {
            guard let open = openImages.isOpen(found.image, access: access) else { return false }
            if !open {
                guard let cookie = request.cookie, !request.hasOtherCredentials,
                      let name = access.fastSignedIn(image: found.image, cookie: cookie, now: started, memo: &signedIn) else { return false }
                user = name
            }
        }
        let (tile, ownCopy, versioned) = (found.tile, found.fromLoopCopy, target.version != nil)
        let notModified = request.ifNoneMatch.map { HTTPHeader.ifNoneMatch($0, names: tile.etag) } ?? false
        let fields = headerFields(of: tile)
        let seconds = MonotonicClock.seconds() - started
        tally.count(notModified: notModified, seconds: seconds, cacheHit: ownCopy, iiif: target.iiif != nil)
        let more = moreFields[Self.fieldsIndex(personal: user != nil, versioned: versioned, iiif: target.iiif != nil)]
        if var user {
            user.withUTF8 { name in
                log?.record(method: request.method, target: request.target, status: notModified ? 304 : 200,
                            bodyBytes: notModified ? 0 : tile.bytes.count, seconds: seconds, cache: .hit, user: UnsafeRawBufferPointer(name))
            }
        } else {
            log?.record(method: request.method, target: request.target, status: notModified ? 304 : 200,
                        bodyBytes: notModified ? 0 : tile.bytes.count, seconds: seconds, cache: .hit)
        }
        tile.bytes.withUnsafeBytes { body in
            send(FastResponse(notModified: notModified, fields: fields, moreFields: more, body: body))
        }
        return true
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
}
