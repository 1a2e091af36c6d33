import POSIXSupport
#if canImport(Glibc)
import Glibc
#endif

/// A baseline JPEG whose data ends before its last row (a copy or an upload that stopped): the rows above the
/// cut decode, and the image is those rows alone, so no pixel is ever made up; the rest is not shown. The
/// warning says so wherever the image is described.
public struct CutShort: Hashable, Sendable {
    /// Rows of the file, as stored (before orientation), that decode: the image's stored height.
    public let rows: Int
    /// Rows the header promises.
    public let of: Int

    /// What a person is told, next to the picture.
    public var warning: String {
        let share = max(1, rows * 100 / max(of, 1))
        return "The file is cut short: only \(rows.grouped) of its \(of.grouped) rows (\(share) %) could be read, "
            + "and only they are shown. Copy the file again from its source."
    }

    /// Finds where a baseline JPEG's data stops, by a scan at 1/8 (libjpeg's DCT scaling), when its
    /// last bytes are not the end-of-image marker. Nil when the whole image decodes (data after the image, such
    /// as a phone's motion clip, is not a cut), and when not even the first rows decode. Remembered per
    /// version of the file, so a listing pays it once.
    static func scan(_ path: String, input: ImageInput, info: ImageInfo, limits: ImageLimits) throws -> CutShort? {
        // A file written in the last few seconds may be being written still (`cp` over it): not cut short but
        // unfinished, and its decode's failure is the change it is (503, ask again), as before.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        guard Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - info.modified >= settled else { return nil }
        guard !info.progressive, !ImageFiles.isObject(path), info.fileSize >= 2,
              try input.read(count: 2, at: info.fileSize - 2) != [0xFF, 0xD9] else { return nil }
        let key = "\(info.fileSize) \(info.modified) \(path)"
        if let known = Self.known.withLock({ $0[key] }) { return known }
        let reader = try JPEGRowReader(path: path, input: input, limits: limits)
        let width = (info.storedWidth + 7) / 8
        let (_, height) = try reader.start(scale: 8, columns: 0 ..< width)
        var band = [UInt8](repeating: 0, count: reader.rowWidth * reader.channels * 16)
        var found: CutShort?
        do {
            var done = 0
            while done < height {
                let n = try band.withUnsafeMutableBufferPointer {
                    try reader.read(into: $0.baseAddress!, stride: reader.rowWidth * reader.channels, rows: min(16, height - done))
                }
                guard n > 0 else { break }
                done += n
            }
        } catch let ImageSourceError.truncated(_, _, _, _, row, _) {
            // Each row at 1/8 stands for eight; one more block row (16) is given up, so a full-size decode,
            // whose chroma reads the rows below it, stays inside the data too.
            // Nothing worth showing above a cut in the first rows: the file stays broken, as its decode will say.
            let rows = row * 8 - 16
            if rows >= 16 { found = CutShort(rows: rows, of: info.storedHeight) }
        }
        Self.known.withLock {
            if $0.count >= 4096 { $0.removeAll() }
            $0[key] = .some(found)
        }
        return found
    }

    /// Nanoseconds since its last write before a file is taken as it is (the library's quiet time for files being
    /// written, `LibrarySync.writeQuiet`).
    static let settled: Int64 = 3_000_000_000

    /// Scans already made: file size, modification time and path → what was found.
    private static let known = Locked<[String: CutShort?]>([:])
}
