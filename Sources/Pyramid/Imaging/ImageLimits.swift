/// Ceilings that keep a hostile or absurd file from costing more than a refusal.
public struct ImageLimits: Sendable, Hashable {
    /// Largest width × height accepted, checked against the header before any pixel buffer exists.
    public var maxPixels: Int
    /// Cap on libjpeg's own allocations (progressive files buffer all coefficients: ~2 bytes a sample).
    public var maxDecoderMemory: Int
    /// Baseline JPEGs of at least this many pixels get an entry index (`JPEGEntryIndex`) the first time a
    /// region away from their top-left corner is decoded; smaller ones are cheap enough to skip through.
    public var entryIndexPixels: Int
    /// Not a ceiling but the one other choice decoders make: convert an RGB file's embedded profile to sRGB
    /// (the default), or keep its colours and hand the profile to the encoders to embed (`--colour keep`).
    public var keepsColourProfiles: Bool

    /// 40 gigapixels: a 200,000 × 200,000 BigTIFF pyramid or a 100,000 × 30,000 PNG is served (tiles of a pyramid
    /// are read from its levels; other files stream rows, so memory follows the width, not the area), while a header
    /// claiming more is refused before anything is read.
    public static let defaultMaxPixels = 40_000_000_000
    public static let defaultMaxDecoderMemory = 4 << 30
    public static let defaultEntryIndexPixels = 16_000_000

    public init(maxPixels: Int = ImageLimits.defaultMaxPixels,
                maxDecoderMemory: Int = ImageLimits.defaultMaxDecoderMemory,
                entryIndexPixels: Int = ImageLimits.defaultEntryIndexPixels, keepsColourProfiles: Bool = false) {
        self.keepsColourProfiles = keepsColourProfiles
        self.maxPixels = maxPixels
        self.maxDecoderMemory = maxDecoderMemory
        self.entryIndexPixels = entryIndexPixels
    }

    /// Throws unless a header's `width × height` is a real size within `maxPixels`: checked before any pixel
    /// buffer exists.
    func check(width w: Int, height h: Int, path: String, format: SourceFormat) throws {
        if w <= 0 || h <= 0 {
            throw ImageSourceError.corrupt(path: path, format: format, atByte: 0, message: "the header gives a size of \(w)×\(h)")
        }
        if w.multipliedReportingOverflow(by: h).partialValue > maxPixels {
            throw ImageSourceError.tooLarge(path: path, width: w, height: h, limit: maxPixels)
        }
    }
}
