import CImageIO

/// Encodes pixel buffers to JPEG or PNG in memory.
enum ImageEncoder {
    /// `tsio_jpeg_encode`: quality 1…100, 4:2:0 chroma unless `subsample` is false. Alpha is flattened onto black.
    public static func jpeg(_ buffer: PixelBuffer, quality: Int = 85, subsample: Bool = true) throws -> [UInt8] {
        let pixels = buffer.flattened()
        return try encode(.jpeg) { out, size, st in
            pixels.bytes.withUnsafeBufferPointer { p in
                tsio_jpeg_encode(p.baseAddress, UInt32(pixels.width), UInt32(pixels.height), pixels.rowBytes,
                                 Int32(pixels.channels), Int32(quality), subsample ? 1 : 0, &out, &size, &st)
            }
        }
    }

    /// `tsio_png_encode`: zlib level 0…9; keeps alpha.
    public static func png(_ buffer: PixelBuffer, level: Int = 6) throws -> [UInt8] {
        try encode(.png) { out, size, st in
            buffer.bytes.withUnsafeBufferPointer { p in
                tsio_png_encode(p.baseAddress, UInt32(buffer.width), UInt32(buffer.height), buffer.rowBytes,
                                Int32(buffer.channels), Int32(level), &out, &size, &st)
            }
        }
    }

    /// The one encode entry point for tiles, regions and view images: JPEG at `quality`, PNG at `pngLevel`.
    public static func encode(_ buffer: PixelBuffer, as format: ImageFormat, quality: Int = 85, pngLevel: Int = 3) throws -> [UInt8] {
        switch format {
        case .jpeg: try jpeg(buffer, quality: quality)
        case .png: try png(buffer, level: pngLevel)
        }
    }

    /// Encoded as the tile settings say, so anything made from tiles matches the tiles' own bytes.
    public static func encode(_ buffer: PixelBuffer, as format: ImageFormat, options: TileOptions) throws -> [UInt8] {
        try encode(buffer, as: format, quality: options.quality, pngLevel: options.pngLevel)
    }

    private static func encode(_ format: ImageFormat,
                               _ call: (inout UnsafeMutablePointer<UInt8>?, inout Int, inout tsio_status) -> Int32) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var st = tsio_status()
        guard call(&out, &size, &st) == 0, let out else {
            throw ImageSourceError.encodeFailed(format: format, message: st.messageText)
        }
        defer { tsio_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
