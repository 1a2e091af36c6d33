import CImageIO
import POSIXSupport

/// A TIFF or BigTIFF read through libtiff (`tsio_tiff_*`). Its first page is the image; pages and SubIFDs that
/// are the same image reduced by a power of two (as `vips tiffsave --pyramid`, IIPImage's tools and Photoshop write
/// them) are its levels, and every shrink reads from the smallest level at least as large, box-shrinking the rest.
/// A tiled level is read tile by tile, so a tile of a pyramidal TIFF costs about its own size: no pass, no raster.
/// A striped TIFF reads the strips under a region; its tiles come from decode passes like a JPEG's.
struct TIFFSource: StoredImageSource {
    let path: String
    let files: ImageFiles
    let info: ImageInfo
    /// The image's levels, full size first, by increasing reduction.
    let levels: [TIFFLevel]
    /// Every directory of the file, as `tileserver info` reports them.
    let directories: [tsio_tiff_dir]
    let colour: ColourTransform.Outcome?
    var keptProfile: [UInt8]? { colour.keptProfile }
    let handles: TIFFHandles
    /// CMYK samples the reader converts itself (with the profile's transform, as rows are read).
    let cmyk: Bool
    /// What opening noticed without failing (a broken page chain past the first page, libtiff's warnings).
    let openWarnings: DecodeWarnings

    /// Pyramid writers (libvips, libtiff, GDAL) put each level's directory after its data, so that the reduced
    /// levels and every directory but the first are at the end: a full level holds about 3/4 of a pyramid's bytes.
    /// An object's last `tailShare` (at least `tailBytes`, at most `restBytes`) is fetched with its head, in
    /// parallel runs; and once the head says where the first directory is, everything from there to the end when
    /// it is at most `restBytes` (`ImageInput.prefetchRest`). Read one by one, the directories would be a chain of
    /// round trips. A pyramid's first directory is about a third of its bytes from the end: with at most 8 MB, a
    /// master of 24 MB (13 000 × 7 300 px) waited a second round trip for it.
    static let tailBytes = 1 << 20
    static let tailShare = 0.4
    static let restBytes = 16 << 20
    /// When the head is known before the open (`ImageInput.knownHead`: the search index read it), the first
    /// directory's `directoryBytes` (its tile tables are read on demand) and the last `knownShare` (the second
    /// directory, about an eighth from the end, the later ones and the smaller levels) are all the open fetches,
    /// in one round; the full level's reduction after it (`restBytes` at most) follows in the background. Behind
    /// 20 ms, four masters of 20–24 MB opened at once fetched 15 MB instead of 35 MB before their first answers.
    static let knownShare = 0.15
    static let directoryBytes = 16 << 10

    /// Starts fetching what opening a TIFF object reads (nothing for a local file); whether it knew where the first
    /// directory is.
    @discardableResult
    static func prefetchOpening(_ input: ImageInput) -> Bool {
        if let head = input.knownHead(16), let first = firstDirectory(head), first > 0 {
            input.prefetchOpening([(first, directoryBytes)])
            input.prefetchTail(tailBytes, share: knownShare, limit: restBytes)
            return true
        }
        input.prefetchTail(tailBytes, share: tailShare, limit: restBytes)
        return false
    }

    /// Where a TIFF header (its first 16 bytes) says the first directory is; nil if it is not a TIFF header.
    static func firstDirectory(_ head: [UInt8]) -> Int64? {
        guard head.count >= 8, head[0] == head[1], head[0] == 0x49 || head[0] == 0x4D else { return nil }
        let little = head[0] == 0x49
        func number(_ at: Int, _ n: Int) -> Int64 {
            let bytes = head[at ..< at + n]
            return (little ? bytes.reversed() : Array(bytes)).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        switch number(2, 2) {
        case 42: return number(4, 4)
        case 43: return head.count >= 16 && number(4, 2) == 8 ? number(8, 8) : nil   // past Int64.max: negative
        default: return nil
        }
    }

    init(path: String, input: ImageInput, limits: ImageLimits) throws {
        let knew = Self.prefetchOpening(input)
        let firstOffset = Self.firstDirectory(try input.read(count: 16, at: 0))
        if let firstOffset, !knew { input.prefetchRest(from: firstOffset, limit: Self.restBytes) }
        let first = try TIFFHandle(path: path, input: input)
        var warnings = DecodeWarnings()
        let dirs = try first.directories(path: path, warnings: &warnings)
        let main = dirs[0]
        guard main.readable != 0 else {
            throw ImageSourceError.unsupported(path: path, message: "TIFF \(TIFFLevel.describe(main)): \(cText(main.reason))")
        }
        let levels = TIFFLevel.levels(of: dirs)
        let smallest = levels.last!
        let pyramid = smallest.tiled && LevelReader.isPyramid(smallestSide: max(smallest.width, smallest.height))
        try limits.check(width: Int(main.width), height: Int(main.height), path: path, format: .tiff, pyramid: pyramid)
        let stamp = try input.stamp()
        self.path = path
        files = input.files
        directories = dirs
        self.levels = levels
        let orientation = Orientation(exif: Int(main.orientation))
        let w = Int(main.width), h = Int(main.height)
        var info = ImageInfo(format: .tiff, width: orientation.swapsAxes ? h : w, height: orientation.swapsAxes ? w : h,
                             channels: Int(main.channels), progressive: false, orientation: orientation,
                             colorSpace: TIFFLevel.colourSpace(main), bitDepth: Int(main.bits), restartInterval: 0,
                             fileSize: stamp.size, modified: stamp.modified, tag: stamp.tag)
        info.millimetresPerPixel = ImageInfo.millimetresPerPixel(unit: Int(main.resolution_unit), resolution: main.x_resolution)
        self.info = info
        try first.select(main.offset, path: path)
        let gray = main.photometric <= 1
        cmyk = main.photometric == 5 && main.direct != 0
        colour = main.has_profile == 0 ? nil : ColourTransform.profile { tsio_tiff_icc_profile(first.raw, &$0, &$1) }.map { [cmyk] profile in
            ColourTransform.outcome(for: profile, layout: ColourTransform.layout(
                for: profile, channels: Int(main.channels), grayPixels: gray, cmyk: cmyk, inverted: false),
                keeping: limits.keepsColourProfiles)
        }
        handles = TIFFHandles(path: path, first: first)
        openWarnings = warnings
        if let firstOffset, knew { input.prefetchRest(from: firstOffset, limit: Self.restBytes, needed: false) }
    }

    /// The level a read at `shrink` comes from, and what is left to shrink it by.
    func level(for shrink: Int) -> (level: TIFFLevel, rest: Int) {
        let level = levels.last { $0.factor <= shrink } ?? levels[0]
        return (level, shrink / level.factor)
    }

    func isRandomAccess(atShrink shrink: Int) -> Bool {
        let (level, rest) = level(for: shrink)
        return level.tiled && rest <= LevelReader.randomAccessReach
    }

    func storedJPEG(_ rect: PixelRect, shrink: Int) throws -> [UInt8]? {
        let (level, rest) = level(for: shrink)
        guard rest == 1, colour == nil, !cmyk, info.orientation == .up, info.channels == 3,
              rect.width == level.tileWidth, rect.height == level.chunkHeight else { return nil }
        let stored = try handles.with(level.offset) { handle -> [UInt8]? in
            var st = tsio_status()
            var bytes: UnsafeMutablePointer<UInt8>?
            var size = 0
            switch tsio_tiff_jpeg_tile(handle.raw, UInt32(rect.x), UInt32(rect.y), &bytes, &size, &st) {
            case 1:
                defer { tsio_free(bytes) }
                return Array(UnsafeBufferPointer(start: bytes, count: size))
            case 0: return nil
            default: throw st.error(path: path, format: .tiff, rows: level.height)
            }
        }
        if stored != nil { readAhead(after: rect, on: level) }
        return stored
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        let (level, rest) = level(for: shrink)
        var warnings = openWarnings
        let channels = info.channels
        let reader = LevelReader(levelWidth: (level.width + rest - 1) / rest, levelHeight: (level.height + rest - 1) / rest,
                                 channels: channels, align: level.chunkHeight % rest == 0 ? level.chunkHeight / rest : 1)
        let transform = colour.attach({ _ in }, warnings: &warnings)
        try handles.with(level.offset) { handle in
            if cmyk { tsio_tiff_set_cmyk_icc(handle.raw, transform?.handle) }
            defer { if cmyk { tsio_tiff_set_cmyk_icc(handle.raw, nil) } }
            try reader.stream(rect, bandRows: bandRows, read: { x, y, w, h, into in
                var st = tsio_status()
                guard tsio_tiff_read(handle.raw, UInt32(x), UInt32(y), UInt32(w), UInt32(h), UInt32(rest), into.baseAddress,
                                     w * channels, &st) == 0 else {
                    throw st.error(path: path, format: .tiff, rows: reader.levelHeight)
                }
                warnings.note(st)
                if let transform, !cmyk { tsio_icc_apply(transform.handle, into.baseAddress, into.baseAddress, w * h) }
            }, into: body)
        }
        if rest == 1 { readAhead(after: rect, on: level) }
        return warnings
    }
}
