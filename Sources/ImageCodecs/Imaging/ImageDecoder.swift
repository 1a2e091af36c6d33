import CImageIO

/// Decodes a small encoded image held in memory (a cached tile) back to pixels, so regions and view images can
/// be assembled from the tile cache instead of rendering tiles again. JPEG comes back as RGB; PNG as RGB, RGBA
/// or, for gray tiles, RGB; WebP and AVIF as RGB or RGBA. EXIF orientation is not applied: tiles carry none.
package enum ImageDecoder {
    /// Tiles are at most 4,096² (the largest `--tile-size`); anything larger is refused before allocating.
    package static let maxPixels = 4096 * 4096

    package static func decode(_ bytes: [UInt8], name: String = "tile") throws -> PixelBuffer {
        guard let format = ImageFormat.detect(bytes) else {
            throw ImageSourceError.unknownFormat(path: name, firstBytes: Array(bytes.prefix(8)))
        }
        return try bytes.withUnsafeBufferPointer { data in
            var st = tsio_status()
            var info = tsio_info()
            switch format {
            case .jpeg:
                guard let decoder = tsio_jpeg_open_mem(data.baseAddress, data.count, UInt64(256 << 20), &info, &st) else {
                    throw st.error(path: name, format: .jpeg, rows: 0)
                }
                defer { tsio_jpeg_close(decoder) }
                try checkSize(info, name: name)
                var w: UInt32 = 0, h: UInt32 = 0, cx: UInt32 = 0, cw: UInt32 = 0
                guard tsio_jpeg_start(decoder, 1, 0, info.width, &w, &h, &cx, &cw, &st) == 0 else {
                    throw st.error(path: name, format: .jpeg, rows: 0)
                }
                return try readRows(width: Int(w), height: Int(h), channels: 3, name: name, format: .jpeg) { dst, stride, rows, st in
                    tsio_jpeg_read(decoder, dst, stride, rows, &st)
                }
            case .png:
                guard let decoder = tsio_png_open_mem(data.baseAddress, data.count, &info, &st) else {
                    throw st.error(path: name, format: .png, rows: 0)
                }
                defer { tsio_png_close(decoder) }
                try checkSize(info, name: name)
                return try readRows(width: Int(info.width), height: Int(info.height), channels: Int(info.channels),
                                    name: name, format: .png) { dst, stride, rows, st in
                    tsio_png_read(decoder, dst, stride, rows, &st)
                }
            case .webp:
                guard let decoder = tsio_webp_open_mem(data.baseAddress, data.count, &info, &st) else {
                    throw ImageSourceError.decodeFailed(path: name, format: .webp, message: st.messageText)
                }
                defer { tsio_webp_close(decoder) }
                try checkSize(info, name: name)
                var buffer = PixelBuffer(width: Int(info.width), height: Int(info.height), channels: Int(info.channels))
                let rowBytes = buffer.rowBytes
                let rows = buffer.bytes.withUnsafeMutableBufferPointer { tsio_webp_read(decoder, $0.baseAddress, rowBytes, info.height, &st) }
                // Fewer rows than the picture has is an error, never a partly filled tile.
                guard rows == Int64(info.height) else {
                    throw ImageSourceError.decodeFailed(path: name, format: .webp, message: rows < 0 ? st.messageText
                        : "\(rows) of \(info.height) rows decoded")
                }
                return buffer
            case .avif:
                var header = tsio_heif_header()
                guard let decoder = tsio_heif_open_mem(data.baseAddress, data.count, &header, &st) else {
                    throw ImageSourceError.decodeFailed(path: name, format: .avif, message: st.messageText)
                }
                defer { tsio_heif_close(decoder) }
                info.width = header.width
                info.height = header.height
                try checkSize(info, name: name)
                var buffer = PixelBuffer(width: Int(header.width), height: Int(header.height), channels: Int(header.channels))
                let rowBytes = buffer.rowBytes
                // libheif gives the whole picture or an error (`tsio_heif_decode`), never part of it.
                guard buffer.bytes.withUnsafeMutableBufferPointer({ tsio_heif_decode(decoder, $0.baseAddress, rowBytes, header.channels, &st) }) == 0 else {
                    throw ImageSourceError.decodeFailed(path: name, format: .avif, message: st.messageText)
                }
                return buffer
            }
        }
    }

    private static func checkSize(_ info: tsio_info, name: String) throws {
        let w = Int(info.width), h = Int(info.height)
        guard w > 0, h > 0, w * h <= maxPixels else {
            throw ImageSourceError.tooLarge(path: name, width: w, height: h, limit: maxPixels)
        }
    }

    private static func readRows(width: Int, height: Int, channels: Int, name: String, format: SourceFormat,
                                 _ read: (UnsafeMutablePointer<UInt8>, Int, UInt32, inout tsio_status) -> Int64) throws -> PixelBuffer {
        var buffer = PixelBuffer(width: width, height: height, channels: channels)
        var st = tsio_status()
        let rowBytes = buffer.rowBytes
        let done = buffer.bytes.withUnsafeMutableBufferPointer { read($0.baseAddress!, rowBytes, UInt32(height), &st) }
        guard done == Int64(height) else {
            if done < 0 { throw st.error(path: name, format: format, rows: height) }
            throw ImageSourceError.truncated(path: name, format: format, atByte: Int64(st.offset), fileSize: Int64(st.file_size),
                                             row: Int(done), rows: height)
        }
        return buffer
    }
}
