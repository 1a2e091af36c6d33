import POSIXSupport

/// Regions of large baseline JPEGs decoded from an extract of their MCUs (`JPEGEntryIndex`) instead of a skip
/// through every row above them.
extension JPEGSource {
    /// Largest extract, in pixels of the master: bounds the extract's buffer (its share of the compressed file)
    /// and its decode; a larger region decodes the usual way.
    static let largestExtract = 64 << 20

    /// A baseline file large enough to be worth an entry index, and whole (the index is read to the end of the
    /// data): any region of it costs about its own size once the index reaches its rows.
    var entersAnywhere: Bool {
        !info.progressive && info.cutShort == nil && info.width * info.height >= limits.entryIndexPixels
    }

    /// Regions (up to the largest extract) are cheap once the file's index reaches its foot: the scan that made
    /// its 1/8 pass does that, or regions asked far enough down, or a complete index kept in the tile store (taken
    /// from there the first time it is asked for).
    var regionsAreCheap: Bool {
        guard entersAnywhere,
              let index = limits.indexes.existing(path, info) ?? (limits.indexes.hasKeeper ? limits.indexes.of(path, info, files) : nil)
        else { return false }
        return index.indexedRows == index.rows
    }

    /// Streams `rect` at `shrink` from an extract of the MCUs under it, with one MCU more on every side where
    /// the image goes on (libjpeg's chroma upsampling reads neighbouring samples, so the extract's own edges
    /// differ; its inside is the whole decode's, to the bit). Nil when the index does not apply: a small or
    /// progressive file, a read from the top-left corner (nothing to skip), rows the index cannot reach.
    func decodeThroughIndex(_ rect: PixelRect, shrink: Int, bandRows: Int,
                            into body: (PixelBand) throws -> Void) throws -> DecodeWarnings? {
        let width = info.storedWidth, height = info.storedHeight
        guard entersAnywhere else { return nil }
        let x0 = rect.x * shrink, y0 = rect.y * shrink
        let x1 = min(rect.maxX * shrink, width), y1 = min(rect.maxY * shrink, height)
        guard y0 > 0 || x0 > 0 || x1 < width, let index = limits.indexes.of(path, info, files) else { return nil }
        let mw = index.mcuWidth, mh = index.mcuHeight
        // The extract's origin must stay on the shrink's grid, so a box filter beyond 1/8 averages the same pixels.
        var c0 = max(0, x0 / mw - 1), r0 = max(0, y0 / mh - 1)
        while c0 * mw % shrink != 0 { c0 -= 1 }
        while r0 * mh % shrink != 0 { r0 -= 1 }
        let c1 = min(index.columns, (x1 + mw - 1) / mw + 1), r1 = min(index.rows, (y1 + mh - 1) / mh + 1)
        guard (c1 - c0) * mw * (r1 - r0) * mh <= Self.largestExtract,
              let (bytes, size) = try index.extract(rows: r0 ..< r1, columns: c0 ..< c1) else { return nil }
        let reader = try JPEGRowReader(path: path, memory: bytes, size: size, limits: limits)
        reader.convert(colour)
        let ox = c0 * mw, oy = r0 * mh
        let local = PixelRect(x: rect.x - ox / shrink, y: rect.y - oy / shrink, width: rect.width, height: rect.height)
        try Self.stream(local, shrink: shrink, storedWidth: min(c1 * mw, width) - ox, from: reader, bandRows: bandRows,
                        into: body)
        return reader.warnings
    }

    /// Streams `rect` at 1/8 from the scan that builds the file's entry index (`JPEGEighthReader`): the pass that
    /// makes a large master's thumbnail levels indexes it on the way, so deep regions of it are cheap from then on.
    /// Nil when that does not apply: another shrink, a file the index does not enter, a scan already made.
    func decodeEighthThroughScan(_ rect: PixelRect, shrink: Int, bandRows: Int,
                                 into body: (PixelBand) throws -> Void) throws -> DecodeWarnings? {
        guard shrink == 8, entersAnywhere, let ycc = scanYCC, let index = limits.indexes.of(path, info, files) else { return nil }
        let width = (info.storedWidth + 7) / 8, height = (info.storedHeight + 7) / 8
        return try index.whileDecodingEighth(ycc: ycc) { perCall, rows in try withoutActuallyEscaping(rows) { next in
            let reader = JPEGEighthReader(path: path, width: width, wantedOffset: rect.x, rowsPerCall: perCall, colour: colour,
                                          next: next) { [path, limits, colour] in
                let libjpeg = try JPEGRowReader(path: path, input: files.open(path), limits: limits)
                libjpeg.convert(colour)
                _ = try libjpeg.start(scale: 8, columns: 0 ..< width)
                return libjpeg
            }
            try RowStreamer(inputWidth: width, inputHeight: height, factor: 1).stream(rect, from: reader, bandRows: bandRows,
                                                                                        into: body)
            return reader.warnings
        } }
    }
}
