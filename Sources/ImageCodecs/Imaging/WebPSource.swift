import CImageIO
import POSIXSupport

/// A WebP photo read with libwebp. WebP has no region or reduced decode (a VP8 frame is predicted from the rows
/// above it, and libwebp decodes it whole), so it is decoded once a pass, into `width × height × channels` bytes
/// counted in the render budget (`ImageInfo.wholeDecodeBytes`), and the pass cuts and stores every tile; its
/// size is capped by the format at 16,383 × 16,383. The `ICCP` profile is converted or kept as for other formats,
/// the `EXIF` chunk's orientation applied; an animated WebP is refused with a clear error.
struct WebPSource: StoredImageSource {
    static let maxFileBytes: Int64 = 1 << 30

    let path: String
    let files: ImageFiles
    let info: ImageInfo
    let colour: ColourTransform.Outcome?
    var keptProfile: [UInt8]? { colour.keptProfile }

    init(path: String, input: ImageInput, limits: ImageLimits) throws {
        let stamp = try input.stamp()
        // The header is in the first bytes (RIFF, then VP8X or the frame's own header): a listing of thousands of
        // photos reads 64 KB of each, not each whole.
        let bytes = try input.read(count: Int(min(stamp.size, 64 << 10)), at: 0)
        guard bytes.count >= 12 else {
            throw ImageSourceError.truncated(path: path, format: .webp, atByte: Int64(bytes.count), fileSize: stamp.size, row: 0, rows: 0)
        }
        var st = tsio_status()
        var raw = tsio_info()
        let opened = bytes.withUnsafeBufferPointer { data -> Bool in
            guard let handle = tsio_webp_open_mem(data.baseAddress, data.count, &raw, &st) else { return false }
            tsio_webp_close(handle)
            return true
        }
        guard opened else { throw st.error(path: path, format: .webp, rows: 0) }
        // The RIFF header says how long the file is: a file cut short is refused now, not at its first tile.
        let riff = Int64(bytes[4]) | Int64(bytes[5]) << 8 | Int64(bytes[6]) << 16 | Int64(bytes[7]) << 24
        guard riff + 8 <= stamp.size else {
            throw ImageSourceError.truncated(path: path, format: .webp, atByte: stamp.size, fileSize: stamp.size, row: 0, rows: 0)
        }
        let chunks = try RIFFChunks(input)
        if let exif = chunks.exif { raw.orientation = Int32(exif.withUnsafeBufferPointer { tsio_exif_orientation($0.baseAddress, $0.count) }) }
        self.path = path
        files = input.files
        info = try ImageInfo(raw: raw, format: .webp, path: path, fileSize: stamp.size, modified: stamp.modified, tag: stamp.tag,
                             limits: limits)
        colour = chunks.profile.map { profile in
            ColourTransform.outcome(for: profile, layout: ColourTransform.layout(
                for: profile, channels: Int(raw.channels), grayPixels: false, cmyk: false, inverted: false),
                keeping: limits.keepsColourProfiles)
        }
    }

    package var structure: SourceStructure {
        SourceStructure(levels: [.init(width: info.width, height: info.height, factor: 1, tileWidth: nil, tileHeight: nil,
                                       compression: "webp")],
                        samples: info.channels, bitsPerSample: 8, profile: colour, notes: ["decoded whole, once a pass"])
    }

    /// The whole file: libwebp decodes from memory.
    static func whole(_ input: ImageInput, path: String, size: Int64) throws -> [UInt8] {
        guard size <= maxFileBytes else {
            throw ImageSourceError.unsupported(path: path, message: "a WebP file of \(size.grouped) bytes (over 1 GiB)")
        }
        let bytes = try input.read(count: Int(size), at: 0)
        guard bytes.count == Int(size) else {
            throw ImageSourceError.truncated(path: path, format: .webp, atByte: Int64(bytes.count), fileSize: size, row: 0, rows: 0)
        }
        return bytes
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        let reader = try WholeImageRowReader(path: path, format: .webp, width: info.storedWidth, height: info.storedHeight,
                                             channels: info.channels, columnsFrom: rect.x * shrink) { dst, stride, channels in
            let bytes = try Self.whole(files.open(path), path: path, size: info.fileSize)
            var st = tsio_status()
            var raw = tsio_info()
            try bytes.withUnsafeBufferPointer { data in
                guard let handle = tsio_webp_open_mem(data.baseAddress, data.count, &raw, &st) else {
                    throw st.error(path: path, format: .webp, rows: 0)
                }
                defer { tsio_webp_close(handle) }
                guard Int(raw.width) == info.storedWidth, Int(raw.height) == info.storedHeight, Int(raw.channels) == channels else {
                    throw ImageSourceError.changed(path: path)
                }
                let n = tsio_webp_read(handle, dst, stride, raw.height, &st)
                guard n == Int64(raw.height) else { throw st.error(path: path, format: .webp, rows: Int(raw.height)) }
            }
        }
        var warnings = DecodeWarnings()
        let transform = colour.attach({ _ in }, warnings: &warnings)
        try RowStreamer(inputWidth: info.storedWidth, inputHeight: info.storedHeight, factor: shrink)
            .stream(rect, from: reader, bandRows: bandRows) { band in
                try ColourTransform.applying(transform, to: band, body)
            }
        return warnings
    }
}
