/// Reads stored rows from a decoder that has already been cropped and started.
protocol StoredRowReader {
    var path: String { get }
    var format: SourceFormat { get }
    /// Samples per row the reader delivers (its crop may be wider than asked: libjpeg widens to iMCUs).
    var rowWidth: Int { get }
    /// Column of the reader's rows where input column 0 of the wanted range sits.
    var wantedOffset: Int { get }
    var channels: Int { get }
    func skip(_ rows: Int) throws
    /// Reads up to `rows` rows into `dst` with `stride` bytes per row; returns rows read.
    func read(into dst: UnsafeMutablePointer<UInt8>, stride: Int, rows: Int) throws -> Int
}

/// Turns a stream of input rows into bands of output rows shrunk by an integer box factor: each output pixel is
/// the rounded mean of the `factor × factor` input block under it (fewer at the right and bottom edges).
struct RowStreamer {
    /// Input rows available in total and the wanted input range, in the reader's (already DCT-scaled) space.
    let inputWidth: Int
    let inputHeight: Int
    let factor: Int

    /// Streams output rectangle `rect` (in the space shrunk by `factor`) from `reader`.
    func stream(_ rect: PixelRect, from reader: StoredRowReader, bandRows: Int,
                into body: (PixelBand) throws -> Void) throws {
        let channels = reader.channels
        let r = factor
        let inY0 = rect.y * r, inY1 = min(rect.maxY * r, inputHeight)
        let inX0 = rect.x * r, inX1 = min(rect.maxX * r, inputWidth)
        let bandRows = max(1, bandRows)
        let inStride = reader.rowWidth * channels
        let outStride = rect.width * channels
        var input = [UInt8](repeating: 0, count: inStride * min(bandRows * r, inY1 - inY0))
        var output = [UInt8](repeating: 0, count: outStride * min(bandRows, rect.height))
        var sums = [UInt32](repeating: 0, count: r > 1 ? outStride : 0)
        try reader.skip(inY0)
        var outY = 0
        var inY = inY0
        while outY < rect.height {
            let outRows = min(bandRows, rect.height - outY)
            let inRows = min(outRows * r, inY1 - inY)
            var got = 0
            try input.withUnsafeMutableBufferPointer { buf in
                while got < inRows {
                    let n = try reader.read(into: buf.baseAddress! + got * inStride, stride: inStride, rows: inRows - got)
                    if n == 0 { break }
                    got += n
                }
            }
            guard got == inRows else {
                throw ImageSourceError.corrupt(path: reader.path, format: reader.format, atByte: 0,
                                               message: "decoder stopped after \(got) of \(inRows) rows of a band")
            }
            input.withUnsafeBufferPointer { src in
                output.withUnsafeMutableBufferPointer { dst in
                    let first = reader.wantedOffset * channels
                    if r == 1 {
                        for row in 0 ..< outRows {
                            let from = src.baseAddress! + row * inStride + first
                            (dst.baseAddress! + row * outStride).update(from: from, count: outStride)
                        }
                    } else {
                        BoxFilter.shrinkRows(src.baseAddress!, dst.baseAddress!, factor: r, outRows: outRows, inRows: inRows,
                                             inStride: inStride, outStride: outStride, first: first,
                                             columns: inX1 - inX0, channels: channels, sums: &sums)
                    }
                }
            }
            try output.withUnsafeBufferPointer { out in
                try body(PixelBand(y: outY, rows: outRows, width: rect.width, channels: channels,
                                   bytes: UnsafeBufferPointer(rebasing: out[0 ..< outRows * outStride])))
            }
            outY += outRows
            inY += inRows
        }
    }
}
