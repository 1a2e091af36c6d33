import CImageIO
import POSIXSupport

/// A JPEG or PNG encoded band by band straight into a file (`tsio_writer_*`), for outputs too large to hold
/// whole: only the band being written and the encoder's own state are in memory.
package final class ImageWriter {
    private var handle: OpaquePointer?
    let format: ImageFormat
    let width: Int
    let channels: Int

    /// Starts the image on `fd` (written from its current offset) at JPEG `quality` or PNG zlib `pngLevel` (the
    /// tiles' own, so anything made from tiles matches their bytes), embedding `profile` when given (`--colour keep`).
    package init(fd: FileDescriptor, format: ImageFormat, width: Int, height: Int, channels: Int, quality: Int,
                 pngLevel: Int, profile: [UInt8]? = nil) throws {
        let (writerChannels, setting) = format == .jpeg ? (channels >= 3 ? 3 : 1, quality) : (channels, pngLevel)
        var st = tsio_status()
        let made = (profile ?? []).withUnsafeBufferPointer { icc in
            tsio_writer_open(fd.rawValue, format == .jpeg ? 0 : 1, UInt32(width), UInt32(height),
                             Int32(writerChannels), Int32(setting), icc.baseAddress, icc.count, &st)
        }
        guard let handle = made else {
            throw ImageSourceError.encodeFailed(format: format, message: st.messageText)
        }
        self.handle = handle
        self.format = format
        self.width = width
        self.channels = writerChannels
    }

    /// The next rows, top to bottom; `band` is `width` wide. JPEG flattens alpha onto black, as tiles do.
    package func write(_ band: PixelBuffer) throws {
        precondition(band.width == width, "band is \(band.width) wide; the image is \(width)")
        let pixels = format == .jpeg ? band.flattened() : band
        var st = tsio_status()
        let result = pixels.bytes.withUnsafeBufferPointer { p in
            tsio_writer_rows(handle, p.baseAddress, pixels.rowBytes, UInt32(pixels.height), &st)
        }
        guard result == 0 else { throw ImageSourceError.encodeFailed(format: format, message: st.messageText) }
    }

    /// Writes the trailer; the writer is done either way.
    package func finish() throws {
        var st = tsio_status()
        let result = tsio_writer_finish(handle, &st)
        handle = nil
        guard result == 0 else { throw ImageSourceError.encodeFailed(format: format, message: st.messageText) }
    }

    deinit {
        if let handle { tsio_writer_abort(handle) }
    }
}
