import CImageIO
import POSIXSupport

/// A HEIC/HEIF or AVIF photo read with libheif. Only the primary image is served (depth maps, auxiliary images and
/// thumbnails are left alone); a grid image (how iPhones store a photo: 512 px HEVC tiles) is assembled by
/// libheif, and its rotation and mirroring (`irot`/`imir`, which the HEIF specification makes the orientation, so
/// an EXIF orientation beside them is not applied a second time) come with the size. libheif 1.15 decodes whole
/// images only, so a photo is decoded once a pass, `width × height × channels` bytes counted in the render budget
/// (`ImageInfo.wholeDecodeBytes`), and the pass cuts and stores every tile. The ICC profile (`colr` `prof`/`rICC`)
/// is converted or kept as for other formats.
struct HEIFSource: StoredImageSource {
    let path: String
    let files: ImageFiles
    let info: ImageInfo
    let header: tsio_heif_header
    let colour: ColourTransform.Outcome?
    var keptProfile: [UInt8]? { colour.keptProfile }

    init(path: String, input: ImageInput, format: SourceFormat, limits: ImageLimits) throws {
        var st = tsio_status()
        var header = tsio_heif_header()
        var opened = false
        let profile = ColourTransform.profile { bytes, size in
            guard let handle = input.withRaw({ tsio_heif_open($0, Self.maxSide, &header, &st) }) else { return 0 }
            opened = true
            defer { tsio_heif_close(handle) }
            return tsio_heif_profile(handle, &bytes, &size)
        }
        guard opened else { throw st.error(path: path, format: format, rows: 0) }
        let stamp = try input.stamp()
        var raw = tsio_info()
        raw.width = header.width
        raw.height = header.height
        raw.channels = Int32(header.channels)
        raw.components = raw.channels
        raw.color_space = Int32(header.channels == 4 ? TSIO_COLOR_RGBA : TSIO_COLOR_RGB)
        raw.bit_depth = Int32(header.bit_depth)
        raw.orientation = 1
        self.path = path
        files = input.files
        self.header = header
        info = try ImageInfo(raw: raw, format: header.avif != 0 ? .avif : format == .avif ? .heic : format, path: path,
                             fileSize: stamp.size, modified: stamp.modified, tag: stamp.tag, limits: limits)
        colour = profile.map { profile in
            ColourTransform.outcome(for: profile, layout: ColourTransform.layout(
                for: profile, channels: Int(header.channels), grayPixels: false, cmyk: false, inverted: false),
                keeping: limits.keepsColourProfiles)
        }
    }

    /// libheif refuses either side over this before decoding (its own default).
    static let maxSide: UInt32 = 32_768

    package var structure: SourceStructure {
        var notes = [header.avif != 0 ? "AVIF (AV1)" : "HEIF (HEVC)", "decoded whole, once a pass"]
        if header.images > 1 { notes.append("\(header.images) images: the primary one is served") }
        if header.depth_images != 0 { notes.append("a depth image (not served)") }
        return SourceStructure(levels: [.init(width: info.width, height: info.height, factor: 1, tileWidth: nil, tileHeight: nil,
                                              compression: header.avif != 0 ? "av1" : "hevc")],
                               samples: info.channels, bitsPerSample: info.bitDepth, profile: colour, notes: notes)
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        let reader = try WholeImageRowReader(path: path, format: info.format, width: info.width, height: info.height,
                                             channels: info.channels, columnsFrom: rect.x * shrink) { dst, stride, channels in
            var st = tsio_status()
            let input = try files.open(path)
            guard let handle = input.withRaw({ tsio_heif_open($0, Self.maxSide, nil, &st) }) else {
                throw st.error(path: path, format: info.format, rows: 0)
            }
            defer { tsio_heif_close(handle) }
            guard tsio_heif_decode(handle, dst, stride, Int32(channels), &st) == 0 else {
                throw st.error(path: path, format: info.format, rows: info.height)
            }
        }
        var warnings = DecodeWarnings()
        let transform = colour.attach({ _ in }, warnings: &warnings)
        try RowStreamer(inputWidth: info.width, inputHeight: info.height, factor: shrink)
            .stream(rect, from: reader, bandRows: bandRows) { band in
                try ColourTransform.applying(transform, to: band, body)
            }
        return warnings
    }
}
