import CImageIO
import POSIXSupport

/// A whole-slide image read through OpenSlide. A region at a shrink is read from the slide's nearest level at or
/// finer than it (slide downsamples are 1, 4, 16… or the scanner's own, not powers of two) and reduced with our
/// area filter, so a thumbnail or a first view never reads level 0. Every shrink is random access: tiles are made
/// directly, never through passes over the whole slide. Where the slide gives bounds, the image is the scanned
/// area (the offset is kept in `SlideFacts`); outside the scanned area is the slide's background colour.
struct SlideSource: StoredImageSource {
    let path: String
    let files: ImageFiles
    let info: ImageInfo
    let facts: SlideFacts
    /// The slide's levels: size and downsample (level 0 first).
    let levels: [(width: Int, height: Int, downsample: Double)]
    /// An Aperio slide read as the tiled TIFF it is: its JPEG tiles as stored (`storedJPEG`), sent as the scanner
    /// wrote them where a tile of ours is exactly one of the slide's; and regions of up to `bandPixels` decoded by
    /// our own tiled-TIFF reader (libjpeg-turbo on the same JPEG tiles: the same pixels, for about a third of
    /// OpenSlide's time), OpenSlide taking over where that reader cannot (a tile the scanner left empty).
    let tiff: TIFFSource?
    var kind: String { "slide" }

    /// Pixels of a level read through OpenSlide at a time (48 MB as RGB), and the largest region our TIFF reader
    /// decodes whole for an Aperio slide.
    static let bandPixels = 16 << 20

    /// Whether OpenSlide takes the local file at `path` for a slide of a vendor it knows; plain TIFFs
    /// ("generic-tiff") stay with our own tiled-TIFF reader, and objects in object storage are not looked at
    /// (OpenSlide reads local files only).
    static func recognises(_ path: String) -> String? {
        guard !ImageFiles.isObject(path), let vendor = tsio_slide_vendor(path).map({ String(cString: $0) }),
              vendor != "generic-tiff" else { return nil }
        return vendor
    }

    init(path: String, vendor: String, input: ImageInput, limits: ImageLimits) throws {
        let stamp = try input.stamp()
        let (levels, facts) = try SlideHandles.shared.with(path, stamp: stamp) { handle in
            var levels: [(width: Int, height: Int, downsample: Double)] = []
            for level in 0 ..< Int(tsio_slide_level_count(handle.raw)) {
                var w: Int64 = 0, h: Int64 = 0, downsample = 0.0
                guard tsio_slide_level(handle.raw, Int32(level), &w, &h, &downsample) == 0 else {
                    throw ImageSourceError.corrupt(path: path, format: .slide, atByte: 0, message: "level \(level) of the slide cannot be read")
                }
                levels.append((Int(w), Int(h), downsample))
            }
            guard let base = levels.first else {
                throw ImageSourceError.corrupt(path: path, format: .slide, atByte: 0, message: "the slide has no levels")
            }
            return (levels, SlideFacts(vendor: vendor, handle: handle, levelWidth: base.width, levelHeight: base.height))
        }
        try limits.check(width: facts.width, height: facts.height, path: path, format: .slide, pyramid: true)
        self.path = path
        files = input.files
        self.facts = facts
        self.levels = levels
        tiff = vendor == "aperio" && facts.originX == 0 && facts.originY == 0
            ? (try? TIFFSource(path: path, input: input, limits: limits)).flatMap {
                // Only where its pixels are OpenSlide's: the same size, and no ICC profile (which our reader would
                // apply and OpenSlide 3.4 does not), so levels read either way match.
                $0.info.width == facts.width && $0.info.height == facts.height && $0.structure.profile == nil ? $0 : nil
            }
            : nil
        var info = ImageInfo(format: .slide, width: facts.width, height: facts.height, channels: 3, progressive: false,
                             orientation: .up, colorSpace: "rgb", bitDepth: 8, restartInterval: 0,
                             fileSize: stamp.size, modified: stamp.modified, tag: stamp.tag)
        info.millimetresPerPixel = facts.micronsPerPixelX.map { $0 / 1000 }
        self.info = info
    }

    func isRandomAccess(atShrink shrink: Int) -> Bool { true }
    var regionsAreCheap: Bool { true }
    var isOwnTileStore: Bool { false }

    /// The slide's own JPEG tile where one of ours is exactly one of its tiles (Aperio, 256-pixel tiles, a level at
    /// this shrink, no colour profile); nil otherwise, and the tile is decoded.
    func storedJPEG(_ rect: PixelRect, shrink: Int) throws -> [UInt8]? {
        try tiff?.storedJPEG(rect, shrink: shrink)
    }

    package var structure: SourceStructure {
        SourceStructure(levels: levels.map { .init(width: $0.width, height: $0.height, factor: Int($0.downsample.rounded()),
                                                   tileWidth: nil, tileHeight: nil, compression: facts.vendor) },
                        samples: 3, bitsPerSample: 8, profile: nil, notes: ["read through OpenSlide (\(facts.vendor))"])
    }

    /// The coarsest level whose downsample, rounded, divides `shrink`: read there, then reduced by the rest.
    func level(for shrink: Int) -> (index: Int, factor: Int) {
        var best = (index: 0, factor: shrink)
        for (i, level) in levels.enumerated() {
            let d = Int(level.downsample.rounded())
            guard d >= 1, d <= shrink, shrink % d == 0, abs(level.downsample - Double(d)) < 0.02 * Double(d) else { continue }
            if shrink / d < best.factor { best = (i, shrink / d) }
        }
        return best
    }

    /// Largest associated image decoded (a macro is a photo of the slide, some megapixels at most).
    static let largestAssociated = 64 << 20

    /// An associated image as RGB over the slide's background.
    func associatedImage(_ entry: SlideFacts.Associated) throws -> PixelBuffer {
        guard entry.width * entry.height <= Self.largestAssociated else {
            throw ImageSourceError.tooLarge(path: path, width: entry.width, height: entry.height, limit: Self.largestAssociated)
        }
        var pixels = PixelBuffer(width: entry.width, height: entry.height, channels: 3)
        try SlideHandles.shared.with(path, stamp: info.stamp) { handle in
            var st = tsio_status()
            let read = pixels.bytes.withUnsafeMutableBufferPointer {
                tsio_slide_read_associated(handle.raw, entry.name, $0.baseAddress, Int64(entry.width), Int64(entry.height), facts.background, &st)
            }
            guard read == 0 else { throw st.error(path: path, format: .slide, rows: 0) }
        }
        return pixels
    }

    func decodeStored(_ rect: PixelRect, shrink: Int, bandRows: Int,
                      into body: (PixelBand) throws -> Void) throws -> DecodeWarnings {
        let (index, factor) = level(for: shrink)
        if let tiff, rect.width * rect.height * factor * factor <= Self.bandPixels,
           let pixels = try? tiff.decode(rect, shrink: shrink), pixels.channels == 3 {
            let rowBytes = pixels.rowBytes
            try pixels.bytes.withUnsafeBufferPointer { all in
                for y in stride(from: 0, to: rect.height, by: max(1, bandRows)) {
                    let rows = min(max(1, bandRows), rect.height - y)
                    try body(PixelBand(y: y, rows: rows, width: rect.width, channels: 3,
                                       bytes: UnsafeBufferPointer(rebasing: all[y * rowBytes ..< (y + rows) * rowBytes])))
                }
            }
            return DecodeWarnings()
        }
        let step = shrink / factor                               // level pixels are `step` level-0 pixels
        let levelWidth = (info.width + step - 1) / step, levelHeight = (info.height + step - 1) / step
        let x0 = rect.x * factor, width = min(rect.width * factor, levelWidth - x0)
        // Output rows per band: whole blocks of `factor` level rows, within the band size asked and the memory bound.
        let rowsPerBand = max(1, min(bandRows, Self.bandPixels / max(1, width * factor * factor)))
        var y = 0
        while y < rect.height {
            let rows = min(rowsPerBand, rect.height - y)
            let ly = (rect.y + y) * factor, lh = min(rows * factor, levelHeight - ly)
            var pixels = PixelBuffer(width: width, height: lh, channels: 3)
            let stride = pixels.rowBytes
            try SlideHandles.shared.with(path, stamp: info.stamp) { handle in
                var st = tsio_status()
                let read = pixels.bytes.withUnsafeMutableBufferPointer {
                    tsio_slide_read(handle.raw, Int32(index), Int64(facts.originX + x0 * step), Int64(facts.originY + ly * step),
                                    Double(step), Int64(width), Int64(lh), $0.baseAddress, stride, facts.background, &st)
                }
                guard read == 0 else { throw st.error(path: path, format: .slide, rows: 0) }
            }
            pixels = pixels.boxShrunk(by: factor)
            guard pixels.width == rect.width, pixels.height == rows else {
                throw ImageSourceError.corrupt(path: path, format: .slide, atByte: 0,
                                               message: "level \(index) gave \(pixels.width)×\(pixels.height) pixels for a \(rect.width)×\(rows) region")
            }
            try pixels.bytes.withUnsafeBufferPointer {
                try body(PixelBand(y: y, rows: rows, width: rect.width, channels: 3, bytes: $0))
            }
            y += rows
        }
        return DecodeWarnings()
    }
}
