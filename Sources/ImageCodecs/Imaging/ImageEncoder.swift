import CImageIO

/// Encodes pixel buffers to JPEG, PNG or WebP in memory.
public enum ImageEncoder {
    /// `tsio_jpeg_encode`: quality 1…100, 4:2:0 chroma unless `subsample` is false. Alpha is flattened onto black.
    /// `profile`, when given, is embedded (APP2).
    package static func jpeg(_ buffer: PixelBuffer, quality: Int = 85, subsample: Bool = true, profile: [UInt8]? = nil) throws -> [UInt8] {
        let pixels = buffer.flattened()
        return try encode(.jpeg) { out, size, st in
            pixels.bytes.withUnsafeBufferPointer { p in
                (profile ?? []).withUnsafeBufferPointer { icc in
                    tsio_jpeg_encode(p.baseAddress, UInt32(pixels.width), UInt32(pixels.height), pixels.rowBytes,
                                     Int32(pixels.channels), Int32(quality), subsample ? 1 : 0, icc.baseAddress, icc.count,
                                     &out, &size, &st)
                }
            }
        }
    }

    /// `tsio_png_encode`: zlib level 0…9; keeps alpha. `profile`, when given, is embedded (iCCP).
    package static func png(_ buffer: PixelBuffer, level: Int = 6, profile: [UInt8]? = nil) throws -> [UInt8] {
        try encode(.png) { out, size, st in
            buffer.bytes.withUnsafeBufferPointer { p in
                (profile ?? []).withUnsafeBufferPointer { icc in
                    tsio_png_encode(p.baseAddress, UInt32(buffer.width), UInt32(buffer.height), buffer.rowBytes,
                                    Int32(buffer.channels), Int32(level), icc.baseAddress, icc.count, &out, &size, &st)
                }
            }
        }
    }

    /// `tsio_webp_encode`: lossy, at the WebP quality `WebPQuality` maps the JPEG `quality` to; keeps alpha.
    /// `profile`, when given, is embedded (ICCP).
    package static func webp(_ buffer: PixelBuffer, quality: Int = 85, profile: [UInt8]? = nil) throws -> [UInt8] {
        try encode(.webp) { out, size, st in
            buffer.bytes.withUnsafeBufferPointer { p in
                (profile ?? []).withUnsafeBufferPointer { icc in
                    tsio_webp_encode(p.baseAddress, UInt32(buffer.width), UInt32(buffer.height), buffer.rowBytes,
                                     Int32(buffer.channels), Float(WebPQuality.webp(forJPEG: quality)), Int32(WebPQuality.method),
                                     icc.baseAddress, icc.count, &out, &size, &st)
                }
            }
        }
    }

    /// `tsio_avif_encode`: AV1 intra, 4:2:0, at the quality `AVIFQuality` maps the JPEG `quality` to; keeps alpha.
    /// `profile`, when given, is embedded (colr).
    package static func avif(_ buffer: PixelBuffer, quality: Int = 85, profile: [UInt8]? = nil) throws -> [UInt8] {
        try encode(.avif) { out, size, st in
            buffer.bytes.withUnsafeBufferPointer { p in
                (profile ?? []).withUnsafeBufferPointer { icc in
                    tsio_avif_encode(p.baseAddress, UInt32(buffer.width), UInt32(buffer.height), buffer.rowBytes,
                                     Int32(buffer.channels), Int32(AVIFQuality.avif(forJPEG: quality)), Int32(AVIFQuality.speed),
                                     icc.baseAddress, icc.count, &out, &size, &st)
                }
            }
        }
    }

    /// The one encode entry point for tiles, regions and view images: JPEG at `quality`, PNG at `pngLevel`, with
    /// WebP at `quality` mapped, with the source's profile embedded when its colours are kept (`ImageSource.keptProfile`).
    public static func encode(_ buffer: PixelBuffer, as format: ImageFormat, quality: Int = 85, pngLevel: Int = 3,
                              profile: [UInt8]? = nil) throws -> [UInt8] {
        switch format {
        case .jpeg: try jpeg(buffer, quality: quality, profile: profile)
        case .png: try png(buffer, level: pngLevel, profile: profile)
        case .webp: try webp(buffer, quality: quality, profile: profile)
        case .avif: try avif(buffer, quality: quality, profile: profile)
        }
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

extension ImageEncoder {
    /// `tsio_jpeg_join`: JPEG tiles (row order, `columns` a row, each `tileSize` square but the last column and
    /// row) joined by their DCT coefficients into one `width × height` JPEG, with `profile` embedded; nil when
    /// the tiles were not coded alike or are damaged, and the image must be made another way.
    package static func joinedJPEG(_ tiles: [[UInt8]], columns: Int, rows: Int, tileSize: Int, width: Int, height: Int,
                           profile: [UInt8]?) -> [UInt8]? {
        guard tiles.count == columns * rows, !tiles.isEmpty else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var st = tsio_status()
        let sizes = tiles.map(\.count)
        let all = tiles.flatMap { $0 } // one buffer, so every tile's pointer is valid through the call
        let joined: Int32 = all.withUnsafeBufferPointer { all in
            var offset = 0
            let pointers: [UnsafePointer<UInt8>?] = sizes.map { size in
                defer { offset += size }
                return all.baseAddress! + offset
            }
            return pointers.withUnsafeBufferPointer { pointers in
                sizes.withUnsafeBufferPointer { sizes in
                    (profile ?? []).withUnsafeBufferPointer { icc in
                        tsio_jpeg_join(pointers.baseAddress, sizes.baseAddress, UInt32(columns), UInt32(rows), UInt32(tileSize),
                                       UInt32(width), UInt32(height), icc.baseAddress, icc.count, &out, &size, &st)
                    }
                }
            }
        }
        guard joined == 1, let out else { return nil }
        defer { tsio_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
