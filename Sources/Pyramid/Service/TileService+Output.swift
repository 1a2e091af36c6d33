import POSIXSupport
import ImageCodecs
import TileGeometry

/// Region and view images made under the render budget, both through `output`: one plan (whole or banded),
/// one lease, one spool.
extension TileService {
    /// Budget share under which an output is made whole in memory; above it, it is made in bands.
    var wholeOutputLimit: Int { renderBudget.capacity / 4 }
    /// What one band of a banded output may take.
    var bandTarget: Int { max(renderBudget.capacity / 8, 1) }

    /// `plan`'s output, transformed and encoded as `format`. Bands are rows of the output, or columns of the
    /// unturned region when the transform turns it a quarter.
    package func encodedRegion(_ plan: RegionPlan, transform: PixelTransform, format: ImageFormat,
                              of image: PyramidImage, in snapshot: PyramidImage.Snapshot, limit: OutputLimit) throws -> EncodedOutput {
        let W = plan.outWidth, H = plan.outHeight
        try Self.check(limit, plan.rect, outWidth: W, outHeight: H, snapshot.geometry)
        let channels = transform.channels(from: plan.channels)
        let raw = W * H * channels
        let turned = transform.quarterTurns % 2 == 1
        gather(plan, of: image, in: snapshot)
        return try output(
            OutputShape(width: turned ? H : W, height: turned ? W : H, channels: channels, format: format,
                        wholeBytes: plan.wholeBytes + (format == .png ? 2 * raw : raw / 2), // the encoded copy too
                        strips: turned ? W : H,
                        stripBytes: { n in turned ? plan.bytes(columns: n, rows: H) : plan.bytes(columns: W, rows: n) },
                        profile: snapshot.source.keptProfile),
            whole: { try transform.apply(region(plan, columns: 0 ..< W, rows: 0 ..< H, of: image, in: snapshot)) },
            band: { strips in
                let (columns, rows) = transform.unturned(strips, width: W, height: H)
                return try transform.apply(region(plan, columns: columns, rows: rows, of: image, in: snapshot))
            })
    }

    /// The view image `layout` describes (`width × height`, before `transform`), turned and encoded; bands are
    /// rows of the output, or columns of the unturned view when the transform turns it a quarter.
    package func encodedView(_ layout: ViewportLayout, of image: PyramidImage, in snapshot: PyramidImage.Snapshot, width: Int, height: Int,
                            background: UInt8, transform: PixelTransform = .none, format: ImageFormat, limit: OutputLimit) throws -> EncodedOutput {
        guard limit.permits(zoom: layout.zoom, imageWidth: snapshot.geometry.width, imageHeight: snapshot.geometry.height) else {
            throw TileServiceError.pastLimit(limit)
        }
        let tiles = 2 * options.tileSize * options.tileSize * 4 // the tiles being painted
        let raw = width * height * 3
        let turned = transform.quarterTurns % 2 == 1
        if layout.tiles.count <= Self.joinLimit { gather(layout.tiles.map(\.tile), format: passFormat(snapshot), of: image, in: snapshot) }
        return try output(
            OutputShape(width: turned ? height : width, height: turned ? width : height, channels: 3, format: format,
                        wholeBytes: raw * (transform == .none ? 1 : 2) + (format == .png ? 2 * raw : raw / 2) + tiles,
                        strips: turned ? width : height,
                        stripBytes: { n in (turned ? height : width) * n * 3 * 2 + tiles }, profile: snapshot.source.keptProfile),
            whole: { transform.apply(try view(layout, of: image, in: snapshot, width: width, height: height, background: background)) },
            band: { strips in
                let (columns, rows) = transform.unturned(strips, width: width, height: height)
                return transform.apply(try view(layout, of: image, in: snapshot, width: width, height: height, background: background,
                                                columns: columns, rows: rows))
            })
    }

    /// Throws `pastLimit` unless `region` drawn `outWidth`×`outHeight` is within `limit` on both axes: the one check
    /// of every region, joined or made.
    static func check(_ limit: OutputLimit, _ region: PixelRect, outWidth: Int, outHeight: Int, _ g: PyramidGeometry) throws {
        guard limit.permits(region: region, outWidth: outWidth, outHeight: outHeight, imageWidth: g.width, imageHeight: g.height) else {
            throw TileServiceError.pastLimit(limit)
        }
    }

    /// What `output` needs to know of an image it makes: its size, how much memory it takes whole, and what a
    /// band of `n` strips (rows or columns) takes.
    struct OutputShape {
        let width: Int
        let height: Int
        let channels: Int
        let format: ImageFormat
        let wholeBytes: Int
        let strips: Int
        let stripBytes: (Int) -> Int
        /// The profile the output embeds (`ImageSource.keptProfile`).
        let profile: [UInt8]?
    }

    /// The one way outputs are made: whole in memory with a lease of what that needs when it fits a quarter of
    /// the budget; otherwise in bands of strips, the largest that fits an eighth of the budget, encoded one after
    /// another into an unnamed spool file under a lease of one band. Throws `RenderBudgetError` when the budget
    /// is busy past its wait, or when even a one-strip band does not fit.
    func output(_ shape: OutputShape, whole: () throws -> PixelBuffer, band: (Range<Int>) throws -> PixelBuffer) throws -> EncodedOutput {
        if shape.wholeBytes <= wholeOutputLimit {
            let lease = try renderBudget.acquire(shape.wholeBytes)
            defer { lease.release() }
            return .bytes(try ImageEncoder.encode(whole(), as: shape.format, quality: options.quality,
                                                pngLevel: options.pngLevel, profile: shape.profile))
        }
        let writerBytes = 1 << 20
        func bytes(_ n: Int) -> Int { shape.stripBytes(n) + writerBytes }
        guard bytes(1) <= renderBudget.capacity else {
            throw RenderBudgetError.tooLarge(bytes: bytes(1), capacity: renderBudget.capacity)
        }
        var size = shape.strips
        while size > 1 && bytes(size) > bandTarget {
            size = max(1, min(size / 2, Int(Double(size) * Double(bandTarget) / Double(bytes(size)))))
        }
        let lease = try renderBudget.acquire(bytes(size))
        defer { lease.release() }
        let file: FileDescriptor
        do { file = try FileDescriptor(anonymousIn: options.rasterDirectory) } catch {
            throw ImageSourceError.cannotOpen(path: options.rasterDirectory, reason: error.description)
        }
        let writer = try ImageWriter(fd: file, format: shape.format, width: shape.width, height: shape.height,
                                     channels: shape.channels, quality: options.quality, pngLevel: options.pngLevel,
                                     profile: shape.profile)
        for start in stride(from: 0, to: shape.strips, by: size) {
            try writer.write(band(start ..< min(shape.strips, start + size)))
        }
        try writer.finish()
        return .file(file, length: Int(try file.status().size))
    }
}
