import CImageIO
import POSIXSupport

/// A JPEG file decoded on demand with libjpeg-turbo: DCT scaling for shrinks up to 8, box averaging beyond,
/// `jpeg_crop_scanline`/`jpeg_skip_scanlines` so a region costs only the rows above and inside it.
struct JPEGSource: StoredImageSource {
    package let path: String
    let files: ImageFiles
    package let info: ImageInfo
    let limits: ImageLimits
    /// The conversion of an embedded ICC profile to sRGB (APP2), or why it was ignored, or the profile kept;
    /// nil when untagged.
    let colour: ColourTransform.Outcome?
    var keptProfile: [UInt8]? { colour.keptProfile }
    /// For the scan's 1/8 decode: whether libjpeg reads the components as YCbCr; nil for CMYK and YCCK files,
    /// which it does not decode.
    let scanYCC: Bool?

    /// Reads the header of the JPEG open at `fd` (offset 0).
    init(path: String, input: ImageInput, limits: ImageLimits) throws {
        let reader = try JPEGRowReader(path: path, input: input, limits: limits)
        let header = reader.raw
        let stamp = try input.stamp()
        self.path = path
        files = input.files
        self.limits = limits
        var info = try ImageInfo(raw: header, format: .jpeg, path: path, fileSize: stamp.size, modified: stamp.modified, tag: stamp.tag, limits: limits)
        if let cut = try CutShort.scan(path, input: input, info: info, limits: limits) { info.cut(to: cut) }
        self.info = info
        let space = Int(header.color_space)
        scanYCC = space == TSIO_COLOR_RGB || space == TSIO_COLOR_GRAY ? header.ycbcr != 0 : nil
        // No profile, but EXIF says Adobe RGB (a camera in Adobe RGB mode): the standard's own profile.
        let adobe = space == TSIO_COLOR_RGB && header.exif_adobe_rgb != 0
        colour = (reader.embeddedProfile() ?? (adobe ? ColourTransform.adobeRGB : nil)).map { profile in
            ColourTransform.outcome(for: profile, layout: ColourTransform.layout(
                for: profile, channels: 3, grayPixels: space == TSIO_COLOR_GRAY,
                cmyk: space == TSIO_COLOR_CMYK || space == TSIO_COLOR_YCCK, inverted: header.adobe_inverted != 0),
                keeping: limits.keepsColourProfiles)
        }
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        if let warnings = try decodeEighthThroughScan(rect, shrink: shrink, bandRows: bandRows, into: body) { return warnings }
        if let warnings = try decodeThroughIndex(rect, shrink: shrink, bandRows: bandRows, into: body) { return warnings }
        let reader = try JPEGRowReader(path: path, input: files.open(path), limits: limits)
        reader.convert(colour)
        try Self.stream(rect, shrink: shrink, storedWidth: info.storedWidth, storedHeight: info.storedHeight, from: reader,
                        bandRows: bandRows, into: body)
        return reader.warnings
    }

    /// Streams `rect` at `shrink` from a decoder over an image `storedWidth` wide: DCT scaling up to 8, a box
    /// filter beyond. `storedHeight`, when less than the decoder's, is where the image ends (a file cut short).
    static func stream(_ rect: PixelRect, shrink: Int, storedWidth: Int, storedHeight: Int = .max, from reader: JPEGRowReader,
                       bandRows: Int, into body: (PixelBand) throws -> Void) throws {
        let dct = min(shrink, 8)
        let factor = shrink / dct
        // libjpeg's scaled width is ceil(width / dct): clip the wanted columns to it.
        let scaledWidth = (storedWidth + dct - 1) / dct
        let (outW, outH) = try reader.start(scale: dct, columns: rect.x * factor ..< min(rect.maxX * factor, scaledWidth))
        let rows = storedHeight == .max ? outH : min(outH, (storedHeight + dct - 1) / dct)
        try RowStreamer(inputWidth: outW, inputHeight: rows, factor: factor).stream(rect, from: reader, bandRows: bandRows, into: body)
    }
}

/// One pass of libjpeg over a file: `tsio_jpeg_*` calls with their status turned into typed errors. Owns the
/// decoder (`tsio_jpeg_close` when released).
final class JPEGRowReader: StoredRowReader {
    let path: String
    let format = SourceFormat.jpeg
    let decoder: OpaquePointer
    /// What the decoder reads: the open file, or an extract in memory (freed with the reader).
    let input: ImageInput?
    let memory: UnsafeMutablePointer<UInt8>?
    /// The header as `tsio_jpeg_open` read it.
    let raw: tsio_info
    var rowWidth = 0
    var wantedOffset = 0
    let channels = 3
    var height = 0
    var warnings = DecodeWarnings()
    /// Held while the decoder converts with it.
    private var transform: ColourTransform?

    init(path: String, input: ImageInput, limits: ImageLimits) throws {
        var st = tsio_status()
        var raw = tsio_info()
        guard let decoder = input.withRaw({ tsio_jpeg_open($0, UInt64(limits.maxDecoderMemory), &raw, &st) }) else {
            throw st.error(path: path, format: .jpeg, rows: 0)
        }
        self.path = path
        self.input = input
        self.memory = nil
        self.decoder = decoder
        self.raw = raw
        warnings.note(st)
    }

    /// A reader of the `size` bytes at `memory` (a `tsio_jidx_extract`), which it owns from now on.
    init(path: String, memory: UnsafeMutablePointer<UInt8>, size: Int, limits: ImageLimits) throws {
        var st = tsio_status()
        var raw = tsio_info()
        guard let decoder = tsio_jpeg_open_mem(memory, size, UInt64(limits.maxDecoderMemory), &raw, &st) else {
            tsio_free(memory)
            throw st.error(path: path, format: .jpeg, rows: 0)
        }
        self.path = path
        self.input = nil
        self.memory = memory
        self.decoder = decoder
        self.raw = raw
        warnings.note(st)
    }

    deinit {
        tsio_jpeg_close(decoder)
        tsio_free(memory)
    }

    /// The ICC profile of the file's APP2 segments, if it has one.
    func embeddedProfile() -> [UInt8]? {
        ColourTransform.profile { tsio_jpeg_icc_profile(decoder, &$0, &$1) }
    }

    /// Converts every row from now on as `outcome` says (nothing when untagged; a warning when ignored).
    func convert(_ outcome: ColourTransform.Outcome?) {
        transform = outcome.attach({ tsio_jpeg_set_icc(decoder, $0) }, warnings: &warnings)
    }

    /// Starts decompression at 1/`scale` and crops to `columns`, which must lie inside the scaled width.
    func start(scale: Int, columns: Range<Int>) throws -> (Int, Int) {
        var st = tsio_status()
        var w: UInt32 = 0, h: UInt32 = 0, cx: UInt32 = 0, cw: UInt32 = 0
        if tsio_jpeg_start(decoder, Int32(scale), UInt32(columns.lowerBound), UInt32(columns.count),
                           &w, &h, &cx, &cw, &st) != 0 {
            throw st.error(path: path, format: .jpeg, rows: 0)
        }
        warnings.note(st)
        rowWidth = Int(cw)
        wantedOffset = columns.lowerBound - Int(cx)
        height = Int(h)
        return (Int(w), Int(h))
    }

    func skip(_ rows: Int) throws {
        var st = tsio_status()
        if tsio_jpeg_skip(decoder, UInt32(rows), &st) < 0 { throw st.error(path: path, format: .jpeg, rows: height) }
        warnings.note(st)
    }

    func read(into dst: UnsafeMutablePointer<UInt8>, stride: Int, rows: Int) throws -> Int {
        var st = tsio_status()
        let n = tsio_jpeg_read(decoder, dst, stride, UInt32(rows), &st)
        if n < 0 { throw st.error(path: path, format: .jpeg, rows: height) }
        warnings.note(st)
        return Int(n)
    }
}
