import CImageIO
import POSIXSupport

/// A PNG file decoded on demand with libpng: rows stream top to bottom (Adam7 files are decoded whole once per
/// pass, costing width × height × channels bytes), shrinks are box averages.
struct PNGSource: StoredImageSource {
    package let path: String
    let files: ImageFiles
    package let info: ImageInfo
    /// The conversion of the iCCP profile to sRGB, or why it was ignored, or the profile kept; nil when untagged.
    let colour: ColourTransform.Outcome?
    var keptProfile: [UInt8]? { colour.keptProfile }

    init(path: String, input: ImageInput, limits: ImageLimits) throws {
        let reader = try PNGRowReader(path: path, input: input, columnsFrom: 0)
        let header = reader.raw
        let stamp = try input.stamp()
        self.path = path
        files = input.files
        self.info = try ImageInfo(raw: header, format: .png, path: path, fileSize: stamp.size, modified: stamp.modified, tag: stamp.tag, limits: limits)
        let gray = Int(header.color_space) == TSIO_COLOR_GRAY || Int(header.color_space) == TSIO_COLOR_GRAY_ALPHA
        let adobe = header.exif_adobe_rgb != 0 && !gray
        colour = (ColourTransform.profile { tsio_png_icc_profile(reader.decoder, &$0, &$1) }
            ?? (adobe ? ColourTransform.adobeRGB : nil)).map { profile in
            ColourTransform.outcome(for: profile, layout: ColourTransform.layout(
                for: profile, channels: Int(header.channels), grayPixels: gray, cmyk: false, inverted: false),
                wide: header.bit_depth == 16, keeping: limits.keepsColourProfiles)
        }
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        let reader = try PNGRowReader(path: path, input: files.open(path), columnsFrom: rect.x * shrink)
        reader.transform = colour.attach({ tsio_png_set_icc(reader.decoder, $0) }, warnings: &reader.warnings)
        try RowStreamer(inputWidth: info.storedWidth, inputHeight: info.storedHeight, factor: shrink)
            .stream(rect, from: reader, bandRows: bandRows, into: body)
        return reader.warnings
    }
}

/// One pass of libpng over a file, full-width rows, through `tsio_png_*`. Owns the decoder (`tsio_png_close`
/// when released).
final class PNGRowReader: StoredRowReader {
    let path: String
    let format = SourceFormat.png
    let decoder: OpaquePointer
    let input: ImageInput
    /// The header as `tsio_png_open` read it.
    let raw: tsio_info
    let rowWidth: Int
    let wantedOffset: Int
    let channels: Int
    let height: Int
    var warnings = DecodeWarnings()
    /// Held while the decoder converts with it.
    var transform: ColourTransform?

    init(path: String, input: ImageInput, columnsFrom: Int) throws {
        var st = tsio_status()
        var raw = tsio_info()
        guard let decoder = input.withRaw({ tsio_png_open($0, &raw, &st) }) else {
            throw st.error(path: path, format: .png, rows: 0)
        }
        self.path = path
        self.input = input
        self.decoder = decoder
        rowWidth = Int(raw.width)
        wantedOffset = columnsFrom
        channels = Int(raw.channels)
        height = Int(raw.height)
        self.raw = raw
        warnings.note(st)
    }

    deinit {
        tsio_png_close(decoder)
    }

    func skip(_ rows: Int) throws {
        var st = tsio_status()
        if tsio_png_read(decoder, nil, 0, UInt32(rows), &st) < 0 { throw st.error(path: path, format: .png, rows: height) }
        warnings.note(st)
    }

    func read(into dst: UnsafeMutablePointer<UInt8>, stride: Int, rows: Int) throws -> Int {
        var st = tsio_status()
        let n = tsio_png_read(decoder, dst, stride, UInt32(rows), &st)
        if n < 0 { throw st.error(path: path, format: .png, rows: height) }
        warnings.note(st)
        return Int(n)
    }
}
