import POSIXSupport

/// Region and view images made under the render budget.
extension TileService {
    /// Budget share under which an output is made whole in memory; above it, it is made in bands.
    var wholeOutputLimit: Int { renderBudget.capacity / 4 }
    /// What one band of a banded output may take.
    var bandTarget: Int { max(renderBudget.capacity / 8, 1) }

    /// `plan`'s output, transformed and encoded as `format`. Small outputs are made whole in memory with a
    /// lease of what they need; larger ones in bands of rows (columns, for quarter turns) encoded one after
    /// another into an unnamed file, with a lease of one band. Throws `RenderBudgetError` when the budget
    /// is busy past its wait, or when even a one-pixel band does not fit.
    public func encodedRegion(_ plan: RegionPlan, transform: PixelTransform, format: ImageFormat,
                              of image: PyramidImage, in snapshot: PyramidImage.Snapshot) throws -> EncodedOutput {
        let outChannels = transform.channels(from: plan.channels)
        let raw = plan.outWidth * plan.outHeight * outChannels
        let whole = plan.wholeBytes + (format == .png ? 2 * raw : raw / 2) // the encoded copy (C buffer, then Swift array)
        if whole <= wholeOutputLimit {
            let lease = try renderBudget.acquire(whole)
            defer { lease.release() }
            let pixels = try region(plan, columns: 0 ..< plan.outWidth, rows: 0 ..< plan.outHeight, of: image, in: snapshot)
            return .bytes(try ImageEncoder.encode(transform.apply(pixels), as: format, options: options))
        }
        return try bandedRegion(plan, transform: transform, format: format, of: image, in: snapshot)
    }

    private func bandedRegion(_ plan: RegionPlan, transform: PixelTransform, format: ImageFormat,
                              of image: PyramidImage, in snapshot: PyramidImage.Snapshot) throws -> EncodedOutput {
        let W = plan.outWidth, H = plan.outHeight
        let turned = transform.quarterTurns % 2 == 1
        let strips = turned ? W : H // output rows are unrotated columns when turned
        func bytes(_ n: Int) -> Int { turned ? plan.bytes(columns: n, rows: H) : plan.bytes(columns: W, rows: n) }
        let writerBytes = 1 << 20
        guard bytes(1) + writerBytes <= renderBudget.capacity else {
            throw RenderBudgetError.tooLarge(bytes: bytes(1) + writerBytes, capacity: renderBudget.capacity)
        }
        var band = strips
        while band > 1 && bytes(band) + writerBytes > bandTarget {
            band = max(1, min(band / 2, Int(Double(band) * Double(bandTarget) / Double(bytes(band)))))
        }
        let lease = try renderBudget.acquire(bytes(band) + writerBytes)
        defer { lease.release() }

        let file = try spoolFile()
        let (outW, outH) = turned ? (H, W) : (W, H)
        let writer = try ImageWriter(fd: file, format: format, width: outW, height: outH,
                                     channels: transform.channels(from: plan.channels), options: options)
        var done = 0
        while done < strips {
            let n = min(band, strips - done)
            // The strip of the mirrored, unturned output that becomes output rows done ..< done + n.
            var columns = 0 ..< W, rows = 0 ..< H
            switch transform.quarterTurns {
            case 0: rows = done ..< done + n
            case 2: rows = H - done - n ..< H - done
            case 1: columns = done ..< done + n
            default: columns = W - done - n ..< W - done
            }
            if transform.mirror { columns = W - columns.upperBound ..< W - columns.lowerBound }
            let pixels = try region(plan, columns: columns, rows: rows, of: image, in: snapshot)
            try writer.write(transform.apply(pixels))
            done += n
        }
        try writer.finish()
        let length = Int(try file.status().size)
        return .file(file, length: length)
    }

    /// The view image `layout` describes, encoded: whole in memory when small, else in bands of rows into a
    /// spooled file, each under a lease like regions.
    public func encodedView(_ layout: ViewportLayout, of image: PyramidImage, in snapshot: PyramidImage.Snapshot,
                            width: Int, height: Int, background: UInt8, format: ImageFormat) throws -> EncodedOutput {
        let tiles = 2 * options.tileSize * options.tileSize * 4
        let raw = width * height * 3
        let whole = raw + (format == .png ? 2 * raw : raw / 2) + tiles
        if whole <= wholeOutputLimit {
            let lease = try renderBudget.acquire(whole)
            defer { lease.release() }
            let canvas = try view(layout, of: image, in: snapshot, width: width, height: height, background: background)
            return .bytes(try ImageEncoder.encode(canvas, as: format, options: options))
        }
        let writerBytes = 1 << 20
        func bytes(_ rows: Int) -> Int { width * rows * 3 * 2 + tiles + writerBytes }
        guard bytes(1) <= renderBudget.capacity else {
            throw RenderBudgetError.tooLarge(bytes: bytes(1), capacity: renderBudget.capacity)
        }
        let band = max(1, min(height, (bandTarget - tiles - writerBytes) / max(1, width * 3 * 2)))
        let lease = try renderBudget.acquire(bytes(band))
        defer { lease.release() }
        let file = try spoolFile()
        let writer = try ImageWriter(fd: file, format: format, width: width, height: height, channels: 3, options: options)
        for top in stride(from: 0, to: height, by: band) {
            try writer.write(try view(layout, of: image, in: snapshot, width: width, height: height, background: background,
                                      rows: top ..< min(height, top + band)))
        }
        try writer.finish()
        return .file(file, length: Int(try file.status().size))
    }

    private func spoolFile() throws -> FileDescriptor {
        do { return try FileDescriptor(anonymousIn: options.rasterDirectory) } catch {
            throw ImageSourceError.cannotOpen(path: options.rasterDirectory, reason: error.description)
        }
    }
}
