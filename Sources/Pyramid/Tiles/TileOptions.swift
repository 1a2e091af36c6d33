import ImageCodecs
/// How tiles are cut, encoded and cached. The server fills this from its `ServerConfiguration`.
public struct TileOptions: Sendable, Hashable {
    public var tileSize: Int
    var overlap: Int
    /// JPEG quality 1…100 (WebP's is mapped from it: `WebPQuality`).
    public var quality: Int
    /// The format decode passes store tiles in and tile URLs without an extension get (PNG instead of JPEG for
    /// images with alpha).
    public var format: ImageFormat
    /// zlib level for PNG tiles.
    var pngLevel: Int
    /// Byte budget of the in-memory LRU of encoded tiles.
    package var cacheBytes: Int
    /// Where outputs too large for memory are spooled (anonymous files, gone when closed).
    package var rasterDirectory: String
    /// Decode passes of different images that run at once (each on a thread of its own, below request priority).
    var passes: Int
    /// Encoder threads of each running pass.
    var passEncoders: Int
    package var limits: ImageLimits
    /// Where image files are read from (an object store, when the server has one).
    package var files: ImageFiles
    /// Pixel memory all region renders, view images and whole-image decodes together may hold.
    package var renderBytes: Int
    /// Requests that may wait for render memory; more get `RenderBudgetError.busy`.
    package var renderQueue: Int
    /// Seconds a request waits for render memory before it gets `RenderBudgetError.busy`.
    package var renderWait: Double
    /// Seconds between two `stat`s of a source file for changes; a replaced file is seen within this time.
    package var changeCheckInterval: Double

    public init(tileSize: Int = 256, overlap: Int = 0, quality: Int = 85, format: ImageFormat = .jpeg, pngLevel: Int = 3,
                cacheBytes: Int = 256 << 20, rasterDirectory: String = "/var/tmp", passes: Int = 2, passEncoders: Int = 2,
                limits: ImageLimits = ImageLimits(), files: ImageFiles = .local, changeCheckInterval: Double = 1,
                renderBytes: Int = 512 << 20, renderQueue: Int = 64, renderWait: Double = 10) {
        self.renderBytes = renderBytes
        self.renderQueue = renderQueue
        self.renderWait = renderWait
        self.changeCheckInterval = changeCheckInterval
        self.passes = passes
        self.passEncoders = passEncoders
        self.tileSize = tileSize
        self.overlap = overlap
        self.quality = quality
        self.format = format
        self.pngLevel = pngLevel
        self.cacheBytes = cacheBytes
        self.rasterDirectory = rasterDirectory
        self.limits = limits
        self.files = files
    }

    /// The format a pass stores an image's tiles in: `format`, PNG instead of JPEG for an image with alpha.
    package func storedFormat(hasAlpha: Bool) -> ImageFormat {
        hasAlpha && !format.keepsAlpha ? .png : format
    }
}
