import HTTPTransport
import ImageCodecs
import Pyramid
import TileGeometry

/// An image a request was admitted to, with the most its identity may see of it (`limit`). The router makes one
/// for every route that names an image (`RouteAccess.image`, `.defaultImage`) before the handler runs, and it is
/// the only way a handler reaches an image: the image itself is private here, and every picture of it (tiles,
/// regions, views) is made through the methods below, which hand `limit` to the tile service. A picture past the
/// limit is the identity's refusal (401 or 403), on both axes, whichever door asked.
struct AdmittedImage: Sendable {
    let id: String
    /// The most this identity may see: `.none` for the whole image.
    let limit: OutputLimit
    /// Whether the original file may be sent: the whole picture, in a folder that allows downloads.
    var mayDownload: Bool { isWhole && originals }
    private let originals: Bool
    private let image: PyramidImage
    private let tiles: TileService
    /// What a picture past `limit` is answered with (counted as a refusal when made).
    private let refusal: @Sendable () -> APIError

    init(id: String, image: PyramidImage, tiles: TileService, limit: OutputLimit, originals: Bool,
         refusal: @escaping @Sendable () -> APIError) {
        self.id = id
        self.originals = originals
        self.image = image
        self.tiles = tiles
        self.limit = limit
        self.refusal = refusal
    }

    /// Whether this identity may have the whole image at full size (the original file among others).
    var isWhole: Bool { limit.longSide == nil }

    /// The master's location (a path or an `s3://` key), for sending the original.
    var masterPath: String { image.path }

    /// The current version; on an event loop only when that needs no system call, else `NeedsFile`.
    func snapshot(_ context: RequestContext) throws -> PyramidImage.Snapshot {
        guard context.onLoop else { return try image.current() }
        guard let known = try image.known() else { throw NeedsFile() }
        return known
    }

    /// The current version, read now (off the event loop).
    func current() throws -> PyramidImage.Snapshot { try image.current() }

    /// What the file says about itself.
    func metadata(for snapshot: PyramidImage.Snapshot) throws -> PhotoMetadata { try image.metadata(for: snapshot) }

    /// Throws unless the original file may be sent: the identity's refusal when the picture is not wholly theirs,
    /// 403 when its folder sends no originals (`download = false`).
    func requireOriginal() throws {
        guard isWhole else { throw refusal() }
        guard originals else { throw APIError.forbidden("the original of '\(id)' is not offered for download (its folder says download = false)") }
    }

    /// The one cache look of `tile`: refused when its level is past `limit`.
    func lookup(_ snapshot: PyramidImage.Snapshot, tile: TileCoordinate, format: ImageFormat, countingMiss: Bool = true) throws -> TileLookup {
        try limited { try tiles.lookup(image, snapshot: snapshot, tile: tile, format: format, limit: limit, countingMiss: countingMiss) }
    }

    /// `region` at `outWidth`×`outHeight` joined from whole JPEG tiles, when it is such a block (`TileService.joinedRegion`).
    func joinedRegion(_ region: PixelRect, outWidth: Int, outHeight: Int, in snapshot: PyramidImage.Snapshot) throws -> [UInt8]? {
        try limited { try tiles.joinedRegion(region, outWidth: outWidth, outHeight: outHeight, of: image, in: snapshot, limit: limit) }
    }

    /// `plan`'s output, transformed and encoded.
    func encodedRegion(_ plan: RegionPlan, transform: PixelTransform, format: ImageFormat, in snapshot: PyramidImage.Snapshot) throws -> EncodedOutput {
        try limited { try tiles.encodedRegion(plan, transform: transform, format: format, of: image, in: snapshot, limit: limit) }
    }

    /// The view image `layout` describes, turned by `transform` and encoded.
    func encodedView(_ layout: ViewportLayout, in snapshot: PyramidImage.Snapshot, width: Int, height: Int, background: UInt8,
                     transform: PixelTransform, format: ImageFormat) throws -> EncodedOutput {
        try limited {
            try tiles.encodedView(layout, of: image, in: snapshot, width: width, height: height, background: background, transform: transform,
                                  format: format, limit: limit)
        }
    }

    /// `tiles` of this image made in the background (the viewer's next moves), none past `limit`. Tiles of levels
    /// finer than `viewLevel` (the view one level up, which a viewer may never ask for) are left to their decode
    /// pass where one will cut them (`TileService.warm`); the ring at the view's own level is made at once.
    /// `inOrder`: one after the other in one job (the first decode a page waits for is not slowed by the next).
    func prefetch(_ wanted: [TileCoordinate], format: ImageFormat, with prefetcher: Prefetcher, viewLevel: Int = .max,
                  inOrder: Bool = false) {
        let (tiles, image, limit) = (tiles, image, limit)
        let make = { @Sendable (tile: TileCoordinate) in
            guard let snapshot = try? image.current(),
                  case let .miss(miss)? = try? tiles.lookup(image, snapshot: snapshot, tile: tile, format: format, limit: limit)
            else { return }
            if tile.level > viewLevel { tiles.warm(miss) } else { _ = try? tiles.render(miss) }
        }
        if inOrder {
            prefetcher.submit(count: 1) { _ in wanted.forEach(make) }
        } else {
            prefetcher.submit(count: wanted.count) { index in make(wanted[index]) }
        }
    }

    /// `body`, whose refusal for a picture past the limit becomes this identity's.
    private func limited<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch TileServiceError.pastLimit { throw refusal() }
    }
}
