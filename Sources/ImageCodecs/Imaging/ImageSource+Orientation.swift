import POSIXSupport
#if canImport(Glibc)
import Glibc
#endif

/// A source that can decode rectangles of the image as stored; orientation is applied on top of it here.
protocol StoredImageSource: ImageSource {
    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings
    /// Where the file was opened from, and is opened again for a decode.
    var files: ImageFiles { get }
}

extension StoredImageSource {
    /// One `stat(2)` (or the object's last listing): the size and modification time the header was read with.
    func checkUnchanged() throws {
        guard files.stamp(path) == info.stamp else {
            throw ImageSourceError.changed(path: path)
        }
    }

    /// Maps the upright rectangle to the stored one, decodes it and turns the pixels upright.
    /// Orientations 1 and 2 stream band by band; the others reverse the row order or swap axes, so the
    /// stored rectangle is decoded into memory first (`rect.area × channels` bytes).
    @discardableResult
    package func decode(_ rect: PixelRect, shrink: Int, bandRows: Int,
                       into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        try checkRegion(rect, shrink: shrink)
        let orientation = info.orientation
        let storedW = (info.storedWidth + shrink - 1) / shrink
        let storedH = (info.storedHeight + shrink - 1) / shrink
        let stored = orientation.storedRect(for: rect, storedW: storedW, storedH: storedH)
        let channels = info.channels
        switch orientation {
        case .up:
            return try decodeStored(stored, shrink: shrink, bandRows: bandRows, into: body)
        case .upMirrored:
            var flipped = [UInt8]()
            return try decodeStored(stored, shrink: shrink, bandRows: bandRows) { band in
                flipped.removeAll(keepingCapacity: true)
                flipped.reserveCapacity(band.bytes.count)
                for row in 0 ..< band.rows {
                    for i in stride(from: band.width - 1, through: 0, by: -1) {
                        let p = (row * band.width + i) * channels
                        flipped.append(contentsOf: band.bytes[p ..< p + channels])
                    }
                }
                try flipped.withUnsafeBufferPointer { buf in
                    try body(PixelBand(y: band.y, rows: band.rows, width: band.width, channels: channels, bytes: buf))
                }
            }
        default:
            var whole = [UInt8](repeating: 0, count: stored.area * channels)
            let warnings = try decodeStored(stored, shrink: shrink, bandRows: 256) { band in
                let start = band.y * stored.width * channels
                whole.withUnsafeMutableBufferPointer { dst in
                    _ = UnsafeMutableBufferPointer(rebasing: dst[start ..< start + band.bytes.count]).initialize(from: band.bytes)
                }
            }
            let bandRows = max(1, bandRows)
            var out = [UInt8](repeating: 0, count: min(bandRows, rect.height) * rect.width * channels)
            var y = 0
            while y < rect.height {
                let rows = min(bandRows, rect.height - y)
                for j in 0 ..< rows {
                    for i in 0 ..< rect.width {
                        let (sx, sy) = orientation.storedPixel(i: i, j: y + j, w: rect.width, h: rect.height)
                        let from = (sy * stored.width + sx) * channels
                        let to = (j * rect.width + i) * channels
                        for c in 0 ..< channels { out[to + c] = whole[from + c] }
                    }
                }
                try out.withUnsafeBufferPointer { buf in
                    try body(PixelBand(y: y, rows: rows, width: rect.width, channels: channels,
                                       bytes: UnsafeBufferPointer(rebasing: buf[0 ..< rows * rect.width * channels])))
                }
                y += rows
            }
            return warnings
        }
    }
}
