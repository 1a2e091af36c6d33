import CImageIO
import POSIXSupport

/// A JPEG 2000 file or code-stream read through OpenJPEG (`tsio_jp2_*`). Its wavelet resolutions are its levels:
/// a read at shrink 2ⁿ asks OpenJPEG for that reduction (up to the file's last resolution) and the area under the
/// rectangle only, so tiles at every level come from the file without a full decode; `ResolutionShrink` puts the
/// samples where they were taken and averages what the resolutions do not reach. Every read has a codec of its own:
/// reads run on any threads at once.
struct JP2Source: StoredImageSource {
    let path: String
    let files: ImageFiles
    let info: ImageInfo
    let header: tsio_jp2_header
    let colour: ColourTransform.Outcome?
    var keptProfile: [UInt8]? { colour.keptProfile }

    init(path: String, input: ImageInput, limits: ImageLimits) throws {
        var st = tsio_status()
        var header = tsio_jp2_header()
        var opened: Int32 = -1
        let profile = ColourTransform.profile { bytes, size in
            let handle = input.withRaw { tsio_jp2_open($0, &header, &bytes, &size, &st) }
            tsio_jp2_close(handle)
            opened = handle != nil ? 0 : -1
            return handle != nil && bytes != nil ? 1 : 0
        }
        guard opened == 0 else { throw st.error(path: path, format: .jp2, rows: 0) }
        let w = Int(header.width), h = Int(header.height)
        // Its last resolution small enough for a thumbnail pass to cost little: read from its levels throughout.
        let pyramid = LevelReader.isPyramid(smallestSide: max(w, h) >> max(0, Int(header.resolutions) - 1))
        try limits.check(width: w, height: h, path: path, format: .jp2, pyramid: pyramid)
        let stamp = try input.stamp()
        self.path = path
        files = input.files
        self.header = header
        let space = header.gray != 0 ? (header.channels == 4 ? "gray-alpha" : "gray")
            : header.colour_space == 3 ? "ycbcr" : (header.channels == 4 ? "rgba" : "rgb")
        info = ImageInfo(format: .jp2, width: w, height: h, channels: Int(header.channels), progressive: false,
                         orientation: .up, colorSpace: space, bitDepth: Int(header.precision), restartInterval: 0,
                         fileSize: stamp.size, modified: stamp.modified, tag: stamp.tag)
        colour = profile.map { profile in
            ColourTransform.outcome(for: profile, layout: ColourTransform.layout(
                for: profile, channels: Int(header.channels), grayPixels: header.gray != 0, cmyk: false, inverted: false),
                keeping: limits.keepsColourProfiles)
        }
    }

    /// The reduction a read at `shrink` asks OpenJPEG for, and what is left to shrink by area.
    func reduction(for shrink: Int) -> (reduce: Int, rest: Int) {
        let reduce = min(shrink.trailingZeroBitCount, max(0, Int(header.resolutions) - 1))
        return (reduce, shrink >> reduce)
    }

    func isRandomAccess(atShrink shrink: Int) -> Bool {
        let (reduce, rest) = reduction(for: shrink)
        guard rest <= LevelReader.randomAccessReach else { return false }
        // HTJ2K is decoded by whole tiles: a tile of ours costs its file tile, which a pass reads once instead when
        // that is more than 16 of our tiles.
        guard header.high_throughput != 0 else { return true }
        let scale = 1 << reduce
        let tileArea = ((Int(header.tile_width) + scale - 1) / scale) * ((Int(header.tile_height) + scale - 1) / scale)
        return tileArea <= 1024 * 1024
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        let (reduce, rest) = reduction(for: shrink)
        let input = try files.open(path)
        var opening = tsio_status()
        guard let handle = input.withRaw({ tsio_jp2_open($0, nil, nil, nil, &opening) }) else {
            throw opening.error(path: path, format: .jp2, rows: 0)
        }
        defer { tsio_jp2_close(handle) }
        let scale = 1 << reduce
        let reducedW = (info.width + scale - 1) / scale, reducedH = (info.height + scale - 1) / scale
        let channels = info.channels
        // Bands end on the file's tile rows at this reduction (at most 256 rows apart), so a band's decode covers
        // whole tiles.
        let tileRows = max(1, Int(header.tile_height) / scale)
        let axes = (x: ResolutionShrink.Axis(available: reducedW, tile: max(1, Int(header.tile_width) / scale)),
                    y: ResolutionShrink.Axis(available: reducedH, tile: tileRows))
        // HTJ2K's reads decode whole tiles: a band is a whole tile row, so each tile is decoded once.
        let align = header.high_throughput != 0 ? max(1, (tileRows + rest - 1) / rest)
            : rest <= 64 ? max(1, min(tileRows, 256) / rest) : 1
        let reader = LevelReader(levelWidth: (reducedW + rest - 1) / rest, levelHeight: (reducedH + rest - 1) / rest,
                                 channels: channels, align: align)
        var warnings = DecodeWarnings()
        let transform = colour.attach({ _ in }, warnings: &warnings)
        let shrink = ResolutionShrink(factor: rest, reduction: reduce), direct = reduce == 0 && rest == 1
        try reader.stream(rect, bandRows: bandRows, read: { x, y, w, h, into in
            // The samples under the band, and the next one where the last pixel's cell reaches it.
            let (rx, rw) = direct ? (x, w) : shrink.samples(origin: x, count: w, along: axes.x)
            let (ry, rh) = direct ? (y, h) : shrink.samples(origin: y, count: h, along: axes.y)
            var reduced = direct ? [] : [UInt8](repeating: 0, count: rw * rh * channels)
            var st = tsio_status()
            let rc = direct
                ? tsio_jp2_read(handle, UInt32(reduce), UInt32(rx), UInt32(ry), UInt32(rw), UInt32(rh), into.baseAddress,
                                rw * channels, Int32(channels), &st)
                : reduced.withUnsafeMutableBufferPointer {
                    tsio_jp2_read(handle, UInt32(reduce), UInt32(rx), UInt32(ry), UInt32(rw), UInt32(rh), $0.baseAddress,
                                  rw * channels, Int32(channels), &st)
                }
            guard rc == 0 else { throw st.error(path: path, format: .jp2, rows: reducedH) }
            warnings.note(st)
            if !direct {
                reduced.withUnsafeBufferPointer {
                    shrink.apply($0, width: rw, height: rh, channels: channels, origin: (x, y), outWidth: w, outHeight: h,
                                 axes: axes, into: into)
                }
            }
            if let transform { tsio_icc_apply(transform.handle, into.baseAddress, into.baseAddress, w * h) }
        }, into: body)
        return warnings
    }
}
