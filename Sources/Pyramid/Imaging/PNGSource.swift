import CImageIO

/// A PNG file decoded on demand with libpng: rows stream top to bottom (Adam7 files are decoded whole once per
/// pass, costing width × height × channels bytes), shrinks are box averages.
public struct PNGSource: StoredImageSource {
    public let path: String
    public let info: ImageInfo

    init(path: String, fd: FileDescriptor, limits: ImageLimits) throws {
        var st = tsio_status()
        var raw = tsio_info()
        guard let decoder = tsio_png_open(fd.rawValue, &raw, &st) else {
            throw st.error(path: path, format: .png, rows: 0)
        }
        tsio_png_close(decoder)
        let stat = try fd.status()
        self.path = path
        self.info = try ImageInfo(raw: raw, format: .png, path: path, fileSize: stat.size, modified: stat.modified, limits: limits)
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        let fd: FileDescriptor
        do { fd = try FileDescriptor(readingAt: path) } catch { throw ImageSourceError.cannotOpen(path: path, reason: error.description) }
        let reader = try PNGRowReader(path: path, fd: fd, columnsFrom: rect.x * shrink)
        defer { tsio_png_close(reader.decoder) }
        do {
            try RowStreamer(inputWidth: info.storedWidth, inputHeight: info.storedHeight, factor: shrink)
                .stream(rect, from: reader, bandRows: bandRows, into: body)
        } catch is RowStreamerShortRead {
            throw ImageSourceError.corrupt(path: path, format: .png, atByte: 0, message: "decoder stopped before the last row")
        }
        return reader.warnings
    }
}

/// One pass of libpng over a file, full-width rows, through `tsio_png_*`.
final class PNGRowReader: StoredRowReader {
    let path: String
    let decoder: OpaquePointer
    let fd: FileDescriptor
    let rowWidth: Int
    let wantedOffset: Int
    let channels: Int
    let height: Int
    var warnings = DecodeWarnings()

    init(path: String, fd: FileDescriptor, columnsFrom: Int) throws {
        var st = tsio_status()
        var raw = tsio_info()
        guard let decoder = tsio_png_open(fd.rawValue, &raw, &st) else {
            throw st.error(path: path, format: .png, rows: 0)
        }
        self.path = path
        self.fd = fd
        self.decoder = decoder
        rowWidth = Int(raw.width)
        wantedOffset = columnsFrom
        channels = Int(raw.channels)
        height = Int(raw.height)
        note(st)
    }

    func skip(_ rows: Int) throws {
        var st = tsio_status()
        if tsio_png_read(decoder, nil, 0, UInt32(rows), &st) < 0 { throw st.error(path: path, format: .png, rows: height) }
        note(st)
    }

    func read(into dst: UnsafeMutablePointer<UInt8>, stride: Int, rows: Int) throws -> Int {
        var st = tsio_status()
        let n = tsio_png_read(decoder, dst, stride, UInt32(rows), &st)
        if n < 0 { throw st.error(path: path, format: .png, rows: height) }
        note(st)
        return Int(n)
    }

    private func note(_ st: tsio_status) {
        if st.warning_count > 0 { warnings.merge(count: Int(st.warning_count), message: st.warningText) }
    }
}
