import POSIXSupport

/// Opens an image file, choosing the decoder by its magic bytes.
public enum ImageOpener {
    /// Reads only the header: cheap even for a 177 MB photo or a hostile 1,000,000 × 1,000,000 PNG.
    public static func open(_ path: String, limits: ImageLimits = ImageLimits()) throws -> any ImageSource {
        let fd: FileDescriptor
        let head: [UInt8]
        do {
            fd = try FileDescriptor(readingAt: path)
            head = try fd.read(count: 12, at: 0)
        } catch {
            throw ImageSourceError.cannotOpen(path: path, reason: error.description)
        }
        switch SourceFormat.detect(head) {
        case .jpeg: return try JPEGSource(path: path, fd: fd, limits: limits)
        case .png: return try PNGSource(path: path, fd: fd, limits: limits)
        case .tiff: return try TIFFSource(path: path, fd: fd, limits: limits)
        case .jp2: return try JP2Source(path: path, fd: fd, limits: limits)
        case nil: throw ImageSourceError.unknownFormat(path: path, firstBytes: head)
        }
    }
}
