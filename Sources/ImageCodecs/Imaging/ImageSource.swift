/// A band of decoded rows handed to a streaming consumer. The memory is valid only inside the callback.
public struct PixelBand {
    /// First row of the band, counted from the top of the requested rectangle.
    public let y: Int
    public let rows: Int
    public let width: Int
    public let channels: Int
    /// `rows × width × channels` bytes, no padding.
    public let bytes: UnsafeBufferPointer<UInt8>

    package init(y: Int, rows: Int, width: Int, channels: Int, bytes: UnsafeBufferPointer<UInt8>) {
        self.y = y
        self.rows = rows
        self.width = width
        self.channels = channels
        self.bytes = bytes
    }
}

/// What a decode noticed but did not fail on (libjpeg's "Corrupt JPEG data" and the like).
public struct DecodeWarnings: Sendable, Equatable {
    public var count: Int = 0
    public var first: String?

    package init(count: Int = 0, first: String? = nil) {
        self.count = count
        self.first = first
    }

    mutating func merge(count: Int, message: String) {
        if count > 0 && first == nil { first = message }
        self.count += count
    }
}

/// Pixels on demand, the libvips region model: an image is a size plus a way to decode any rectangle at any
/// power-of-two shrink. Everything above this layer reads pixels only through it.
public protocol ImageSource: Sendable {
    var path: String { get }
    var info: ImageInfo { get }
    /// True when any rectangle at `shrink` costs about its own size to decode (no sequential file to read: a
    /// tiled TIFF near one of its levels, a JPEG 2000), so tiles of that shrink are made directly instead of
    /// through decode passes.
    func isRandomAccess(atShrink shrink: Int) -> Bool
    /// True when a tile-sized region anywhere costs about its own size to decode now (a JPEG whose entry index
    /// reaches every row), though the file is read in sequence; false when a region costs the rows above it too.
    var regionsAreCheap: Bool { get }
    /// What the pixels come from: "jpeg", "png", or another word for synthetic sources.
    var kind: String { get }
    /// True when a tile read straight from the file costs about what reading it back from the tile store would (a
    /// tiled TIFF's, a JPEG 2000's): such tiles are not stored. False where each costs a decode and an encode
    /// (a slide's, through OpenSlide): they are stored like a pass's.
    var isOwnTileStore: Bool { get }
    /// The ICC profile every output made from these pixels embeds: set when the file's colours are kept
    /// (`--colour keep`) rather than converted to sRGB; nil when outputs are sRGB.
    var keptProfile: [UInt8]? { get }

    /// Streams `rect` of the upright image shrunk by `shrink` (1, 2, 4, …: the image is
    /// `ceil(width / shrink) × ceil(height / shrink)` and each pixel averages the `shrink × shrink` block
    /// under it) in bands of at most `bandRows` rows, top to bottom.
    @discardableResult
    func decode(_ rect: PixelRect, shrink: Int, bandRows: Int,
                into body: (PixelBand) throws -> Void) throws -> DecodeWarnings

    /// The file's levels, tiles, compression and profile, from its header (`tileserver info`).
    var structure: SourceStructure { get }

    /// The tile `rect` of the upright image at `shrink` as the JPEG the file already stores it as, when the file
    /// holds exactly that tile in a form that is served unchanged (a JPEG-compressed tiled TIFF level on the
    /// pyramid's grid, no ICC profile, upright): no decode and no encode, and no loss a second encoding would add.
    /// Nil otherwise.
    func storedJPEG(_ rect: PixelRect, shrink: Int) throws -> [UInt8]?

    /// Throws `ImageSourceError.changed` when the file is no longer the one `info` describes: pixels decoded
    /// from it since may mix two versions, so they must not be served.
    func checkUnchanged() throws
}

extension ImageSource {
    package func isRandomAccess(atShrink shrink: Int) -> Bool { false }
    package var regionsAreCheap: Bool { false }
    package var keptProfile: [UInt8]? { nil }
    package var isOwnTileStore: Bool { true }
    package var structure: SourceStructure {
        SourceStructure(levels: [.init(width: info.width, height: info.height, factor: 1, tileWidth: nil, tileHeight: nil,
                                       compression: kind)], samples: info.channels, bitsPerSample: info.bitDepth, profile: nil)
    }
    package func checkUnchanged() throws {}
    package func storedJPEG(_ rect: PixelRect, shrink: Int) throws -> [UInt8]? { nil }
    package var kind: String { info.format.rawValue }

    /// Size of the upright image shrunk by `shrink`.
    package func size(shrink: Int) -> (width: Int, height: Int) {
        ((info.width + shrink - 1) / shrink, (info.height + shrink - 1) / shrink)
    }

    /// Throws `regionOutside` unless `shrink` is a power of two and `rect` lies inside the image at that shrink.
    package func checkRegion(_ rect: PixelRect, shrink: Int) throws {
        let (w, h) = size(shrink: max(1, shrink))
        guard shrink >= 1, shrink.nonzeroBitCount == 1, rect.fits(width: w, height: h) else {
            throw ImageSourceError.regionOutside(path: path, region: rect, width: w, height: h, shrink: shrink)
        }
    }

    /// Decodes `rect` at `shrink` into one buffer.
    public func decode(_ rect: PixelRect, shrink: Int = 1) throws -> PixelBuffer {
        var out = [UInt8](repeating: 0, count: rect.area * info.channels)
        let rowBytes = rect.width * info.channels
        try decode(rect, shrink: shrink, bandRows: 256) { band in
            let start = band.y * rowBytes
            out.withUnsafeMutableBufferPointer { dst in
                _ = UnsafeMutableBufferPointer(rebasing: dst[start ..< start + band.bytes.count]).initialize(from: band.bytes)
            }
        }
        return PixelBuffer(width: rect.width, height: rect.height, channels: info.channels, bytes: out)
    }

    /// The whole upright image at `shrink`.
    func decodeAll(shrink: Int = 1) throws -> PixelBuffer {
        let (w, h) = size(shrink: shrink)
        return try decode(PixelRect(x: 0, y: 0, width: w, height: h), shrink: shrink)
    }
}
