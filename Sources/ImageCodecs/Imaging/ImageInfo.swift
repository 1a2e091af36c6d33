import POSIXSupport

/// What the header of an image says, with width and height already upright (EXIF orientation applied).
public struct ImageInfo: Hashable, Sendable {
    public var format: SourceFormat
    /// Upright size: what a viewer shows.
    public var width: Int
    public var height: Int
    /// Samples per pixel the decoder delivers: 3 (RGB) or 4 (RGBA).
    public var channels: Int
    /// JPEG progressive or PNG Adam7 interlaced: such files cannot stream rows.
    package var progressive: Bool
    public var orientation: Orientation
    /// The file's own colour space: gray, rgb, cmyk, ycck, gray-alpha, rgba or palette.
    package var colorSpace: String
    package var bitDepth: Int
    /// JPEG restart interval in MCUs; 0 when none.
    package var restartInterval: Int
    package var fileSize: Int64
    /// Modification time of the file, nanoseconds since 1970: with `fileSize`, tells when a source changed.
    package var modified: Int64
    /// For an object in object storage, a hash of its ETag (0 for a local file): with `fileSize` and `modified`,
    /// what tells that it was replaced.
    package var tag: UInt64 = 0
    /// Set when the file's data ends early and the image is the rows above the cut (`CutShort`).
    public var cutShort: CutShort?
    /// What one pixel measures on the thing imaged, in millimetres, where the header says so: a slide's microns per
    /// pixel, a TIFF's resolution in real units (`ImageInfo.millimetresPerPixel(unit:resolution:)`). JPEGs say it
    /// in their EXIF (`PhotoMetadata.millimetresPerPixel`).
    public var millimetresPerPixel: Double?

    package init(format: SourceFormat, width: Int, height: Int, channels: Int, progressive: Bool, orientation: Orientation,
                colorSpace: String, bitDepth: Int, restartInterval: Int, fileSize: Int64, modified: Int64, tag: UInt64 = 0) {
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.progressive = progressive
        self.orientation = orientation
        self.colorSpace = colorSpace
        self.bitDepth = bitDepth
        self.restartInterval = restartInterval
        self.fileSize = fileSize
        self.modified = modified
        self.tag = tag
    }

    /// A TIFF's ResolutionUnit and XResolution as millimetres per pixel, unless they are what software writes when
    /// it knows nothing: 72 or 96 dpi, or libvips' one pixel per millimetre (10 per centimetre, 25.4 per inch). A
    /// TIFF is a scan, a microscope's or a scientific image far more often than a camera's.
    static func millimetresPerPixel(unit: Int, resolution: Double) -> Double? {
        guard resolution.isFinite, resolution > 0, resolution < 10_000_000 else { return nil }
        switch unit {
        case 3 where resolution != 10: return 10 / resolution
        case 2 where ![72, 96, 25.4].contains(resolution): return 25.4 / resolution
        default: return nil
        }
    }

    /// The image as the rows of `cut` alone: they are its stored height.
    mutating func cut(to cut: CutShort) {
        if orientation.swapsAxes { width = cut.rows } else { height = cut.rows }
        cutShort = cut
    }

    /// Size as stored in the file, before orientation.
    var storedWidth: Int { orientation.swapsAxes ? height : width }
    var storedHeight: Int { orientation.swapsAxes ? width : height }
    package var hasAlpha: Bool { channels == 4 }
    /// The file's size and modification time when the header was read.
    package var stamp: FileStamp { FileStamp(size: fileSize, modified: modified, tag: tag) }

    /// Heap bytes a decode holds from its first row to its last when the file cannot stream rows: every DCT
    /// coefficient of a progressive JPEG (2 bytes a sample; 4:2:0 colour is 1.5 samples a pixel), or the
    /// whole decoded image of an Adam7 PNG (two bytes a sample when 16-bit: kept so colour converts at full
    /// depth). Zero for files that stream.
    package var wholeDecodeBytes: Int {
        let pixels = width * height
        if [.webp, .heic, .avif].contains(format) { return pixels * channels }
        guard progressive else { return 0 }
        switch format {
        case .png: return pixels * channels * (bitDepth == 16 ? 2 : 1)
        case .jpeg:
            switch colorSpace {
            case "gray": return pixels * 2
            case "cmyk", "ycck": return pixels * 8
            default: return pixels * 3
            }
        case .tiff, .jp2, .webp, .heic, .avif, .slide: return 0
        }
    }
}
