import POSIXSupport

/// Opens an image file (a local path or an `s3://` object), choosing the decoder by its magic bytes.
public enum ImageOpener {
    /// Reads only the header: cheap even for a 177 MB photo or a hostile 1,000,000 × 1,000,000 PNG. `files` says
    /// where an object path is read from; the source reads its file from there again for each decode.
    public static func open(_ path: String, limits: ImageLimits = ImageLimits(), files: ImageFiles = .local) throws -> any ImageSource {
        if SourceFormat.isSlide(fileName: path), ImageFiles.isObject(path) {
            throw ImageSourceError.unsupported(path: path, message: "a whole-slide image is read through OpenSlide, which reads local files only: copy it to a local folder")
        }
        let input = try files.open(path)
        input.recordStructure()
        // The file's end on its way beside its head: a TIFF's directories (after each level's data, as pyramid
        // writers put them), the last bytes a JPEG is checked to end with.
        if SourceFormat.named(path) == .tiff { TIFFSource.prefetchOpening(input) } else { input.prefetchTail(1) }
        let source = try open(path, input: input, limits: limits)
        if let ranges = input.recordedStructure(), let structures = files.structures {
            structures.later {
                if let tiff = source as? TIFFSource { tiff.keepStructure(opening: ranges) } else { input.keepStructure(ranges) }
            }
        }
        return source
    }

    private static func open(_ path: String, input: ImageInput, limits: ImageLimits) throws -> any ImageSource {
        let slideName = SourceFormat.isSlide(fileName: path)
        let head = try input.read(count: 12, at: 0)
        if SourceFormat.isCameraRaw(fileName: path), !head.isEmpty { throw ImageSourceError.unknownFormat(path: path, firstBytes: head) }
        // A slide of a vendor OpenSlide knows (most are TIFF inside; some are not TIFF at all); asked only of TIFF
        // files and slide names, so other photos pay nothing.
        let detected = SourceFormat.detect(head)
        if detected == .tiff || slideName, let vendor = SlideSource.recognises(path) {
            return try SlideSource(path: path, vendor: vendor, input: input, limits: limits)
        }
        // Named as a slide but not one OpenSlide reads: never shown as the plain TIFF some slides hold inside.
        if slideName {
            throw ImageSourceError.unsupported(path: path, message: "OpenSlide 3.4 does not read this file as a whole-slide image "
                + "(the file is damaged or cut short, or its format needs a later OpenSlide)")
        }
        switch detected {
        case .jpeg: return try JPEGSource(path: path, input: input, limits: limits)
        case .png: return try PNGSource(path: path, input: input, limits: limits)
        case .tiff: return try TIFFSource(path: path, input: input, limits: limits)
        case .jp2: return try JP2Source(path: path, input: input, limits: limits)
        case .webp: return try WebPSource(path: path, input: input, limits: limits)
        case .heic, .avif: return try HEIFSource(path: path, input: input, format: SourceFormat.detect(head) ?? .heic, limits: limits)
        case .slide, nil: throw ImageSourceError.unknownFormat(path: path, firstBytes: head)
        }
    }
}
