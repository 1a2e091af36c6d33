import POSIXSupport

/// Opens an image file (a local path or an `s3://` object), choosing the decoder by its magic bytes.
public enum ImageOpener {
    /// Reads only the header: cheap even for a 177 MB photo or a hostile 1,000,000 × 1,000,000 PNG. `files` says
    /// where an object path is read from; the source reads its file from there again for each decode.
    public static func open(_ path: String, limits: ImageLimits = ImageLimits(), files: ImageFiles = .local) throws -> any ImageSource {
        let input = try files.open(path)
        let head = try input.read(count: 12, at: 0)
        if SourceFormat.isCameraRaw(fileName: path), !head.isEmpty { throw ImageSourceError.unknownFormat(path: path, firstBytes: head) }
        switch SourceFormat.detect(head) {
        case .jpeg: return try JPEGSource(path: path, input: input, limits: limits)
        case .png: return try PNGSource(path: path, input: input, limits: limits)
        case .tiff: return try TIFFSource(path: path, input: input, limits: limits)
        case .jp2: return try JP2Source(path: path, input: input, limits: limits)
        case .webp: return try WebPSource(path: path, input: input, limits: limits)
        case .heic, .avif: return try HEIFSource(path: path, input: input, format: SourceFormat.detect(head) ?? .heic, limits: limits)
        case nil: throw ImageSourceError.unknownFormat(path: path, firstBytes: head)
        }
    }
}
