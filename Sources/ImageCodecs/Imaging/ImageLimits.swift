/// Ceilings that keep a hostile or absurd file from costing more than a refusal.
public struct ImageLimits: Sendable, Hashable {
    /// Largest width × height accepted of an image decoded in passes (JPEG, PNG, striped or flat TIFF), checked
    /// against the header before any pixel buffer exists: their decode costs their area, and a small file claiming
    /// 60,000² would cost a minute of garbage rows.
    package var maxPixels: Int
    /// The same for an image read from its own levels (a tiled pyramidal TIFF, a JPEG 2000 whose resolutions reach
    /// thumbnail size): a tile costs about its own size whatever the image's.
    package var maxPyramidPixels: Int
    /// Cap on libjpeg's own allocations (progressive files buffer all coefficients: ~2 bytes a sample).
    package var maxDecoderMemory: Int
    /// Baseline JPEGs of at least this many pixels get an entry index (`JPEGEntryIndex`) the first time a
    /// region away from their top-left corner is decoded; smaller ones are cheap enough to skip through.
    package var entryIndexPixels: Int
    /// Not a ceiling but the one other choice decoders make: convert an RGB file's embedded profile to sRGB
    /// (the default), or keep its colours and hand the profile to the encoders to embed (`--colour keep`).
    package var keepsColourProfiles: Bool
    /// Where the entry indexes of sources opened with these limits are kept: one store per server (its budget is
    /// `--index-memory-mb`). Limits compare equal only with the same store.
    package var indexes: EntryIndexes

    public static let defaultMaxPixels = 2_000_000_000
    /// 40 gigapixels: a 200,000 × 200,000 pyramid.
    public static let defaultMaxPyramidPixels = 40_000_000_000
    public static let defaultMaxDecoderMemory = 4 << 30
    public static let defaultEntryIndexPixels = 8_000_000

    public init(maxPixels: Int = ImageLimits.defaultMaxPixels, maxPyramidPixels: Int = ImageLimits.defaultMaxPyramidPixels,
                maxDecoderMemory: Int = ImageLimits.defaultMaxDecoderMemory,
                entryIndexPixels: Int = ImageLimits.defaultEntryIndexPixels, keepsColourProfiles: Bool = false) {
        self.init(maxPixels: maxPixels, maxPyramidPixels: maxPyramidPixels, maxDecoderMemory: maxDecoderMemory,
                  entryIndexPixels: entryIndexPixels, keepsColourProfiles: keepsColourProfiles, indexes: EntryIndexes())
    }

    package init(maxPixels: Int, maxPyramidPixels: Int, maxDecoderMemory: Int, entryIndexPixels: Int,
                 keepsColourProfiles: Bool, indexes: EntryIndexes) {
        self.indexes = indexes
        self.keepsColourProfiles = keepsColourProfiles
        self.maxPixels = maxPixels
        self.maxPyramidPixels = maxPyramidPixels
        self.maxDecoderMemory = maxDecoderMemory
        self.entryIndexPixels = entryIndexPixels
    }

    /// Throws unless a header's `width × height` is a real size within `maxPixels` (`maxPyramidPixels` for an image
    /// read from its own levels): checked before any pixel buffer exists.
    func check(width w: Int, height h: Int, path: String, format: SourceFormat, pyramid: Bool = false) throws {
        if w <= 0 || h <= 0 {
            throw ImageSourceError.corrupt(path: path, format: format, atByte: 0, message: "the header gives a size of \(w)×\(h)")
        }
        let limit = pyramid ? maxPyramidPixels : maxPixels
        if w.multipliedReportingOverflow(by: h).partialValue > limit {
            throw ImageSourceError.tooLarge(path: path, width: w, height: h, limit: limit, pyramid: pyramid)
        }
    }

    public static func == (a: ImageLimits, b: ImageLimits) -> Bool {
        a.maxPixels == b.maxPixels && a.maxPyramidPixels == b.maxPyramidPixels && a.maxDecoderMemory == b.maxDecoderMemory
            && a.entryIndexPixels == b.entryIndexPixels && a.keepsColourProfiles == b.keepsColourProfiles && a.indexes === b.indexes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(maxPixels)
        hasher.combine(maxPyramidPixels)
        hasher.combine(maxDecoderMemory)
        hasher.combine(entryIndexPixels)
        hasher.combine(keepsColourProfiles)
        hasher.combine(ObjectIdentifier(indexes))
    }
}
