import ImageCodecs
import TileGeometry
/// Regions that are blocks of whole tiles, answered by joining the tiles' JPEGs: the Universal Viewer asks for
/// 512 px tiles, each four of a 256 px pyramid's. Joined by their DCT coefficients, the answer costs two entropy
/// passes instead of four decodes, a resample and an encode, and adds no loss to the tiles'.
extension TileService {
    /// Most tiles one joined region takes (an 8 × 8 block), so its coefficients stay a few megabytes.
    static let joinLimit = 64

    /// `region` at exactly `outWidth × outHeight` as one JPEG joined from its tiles, which are looked up, or
    /// made, as tile requests make them. Nil when the region is not a block of two or more whole tiles of one
    /// level at exactly that size (a size the server derives, IIIF's `w,` or `!w,h`, can round a pixel away from
    /// the level's halving), the image has alpha, the join would take more memory than a whole output may, or
    /// the tiles were not coded alike (a file's own JPEG tiles beside re-encoded edge tiles): the region is then
    /// made the ordinary way.
    package func joinedRegion(_ region: PixelRect, outWidth: Int, outHeight: Int, of image: PyramidImage,
                             in snapshot: PyramidImage.Snapshot, limit: OutputLimit) throws -> [UInt8]? {
        try Self.check(limit, region, outWidth: outWidth, outHeight: outHeight, snapshot.geometry)
        guard !snapshot.source.info.hasAlpha,
              let block = snapshot.geometry.tileBlock(exactly: region, outWidth: outWidth, outHeight: outHeight)
        else { return nil }
        let tiles = block.tiles
        guard tiles.count > 1, tiles.count <= Self.joinLimit else { return nil }
        let size = snapshot.geometry.tileSize
        // The coefficients (at most 6 bytes a pixel, 4:4:4) and the tiles: past what a whole output may take, the
        // region is made in bands the ordinary way rather than refused.
        let bytes = block.width * block.height * 6 + tiles.count * size * size
        guard bytes <= wholeOutputLimit else { return nil }
        let lease = try renderBudget.acquire(bytes)
        defer { lease.release() }
        var encoded: [[UInt8]] = []
        encoded.reserveCapacity(tiles.count)
        gather(tiles, format: .jpeg, of: image, in: snapshot)
        for tile in tiles {
            switch try lookup(image, snapshot: snapshot, tile: tile, format: .jpeg, limit: .none) {
            case let .hit(hit): encoded.append(hit.bytes)
            case let .miss(miss): encoded.append(try produce(miss).tile.bytes)
            }
        }
        guard let joined = ImageEncoder.joinedJPEG(encoded, columns: block.columns.count, rows: block.rows.count,
                                                   tileSize: size, width: block.width, height: block.height,
                                                   profile: snapshot.source.keptProfile) else { return nil }
        passCounters.withLock { $0.joinedRegions += 1 }
        return joined
    }
}
