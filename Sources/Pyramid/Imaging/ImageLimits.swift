/// Ceilings that keep a hostile or absurd file from costing more than a refusal.
public struct ImageLimits: Sendable, Hashable {
    /// Largest width × height accepted, checked against the header before any pixel buffer exists.
    public var maxPixels: Int
    /// Cap on libjpeg's own allocations (progressive files buffer all coefficients: ~2 bytes a sample).
    public var maxDecoderMemory: Int

    public static let defaultMaxPixels = 2_000_000_000
    public static let defaultMaxDecoderMemory = 4 << 30

    public init(maxPixels: Int = ImageLimits.defaultMaxPixels,
                maxDecoderMemory: Int = ImageLimits.defaultMaxDecoderMemory) {
        self.maxPixels = maxPixels
        self.maxDecoderMemory = maxDecoderMemory
    }
}
