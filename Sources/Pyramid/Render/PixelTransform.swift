import ImageCodecs
/// What is done to a region's pixels after resampling, in IIIF order: mirror, then turn, then quality.
package struct PixelTransform: Sendable, Equatable {
    package enum Tone: Sendable, Equatable { case color, gray, bitonal }

    package var mirror: Bool
    /// Clockwise quarter turns, 0 to 3.
    package var quarterTurns: Int
    var tone: Tone

    package init(mirror: Bool = false, quarterTurns: Int = 0, tone: Tone = .color) {
        self.mirror = mirror
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.tone = tone
    }

    package static let none = PixelTransform()

    package func apply(_ pixels: PixelBuffer) -> PixelBuffer {
        var out = mirror ? pixels.mirrored() : pixels
        out = out.rotated(quarterTurns: quarterTurns)
        switch tone {
        case .color: return out
        case .gray: return out.gray(bitonal: false)
        case .bitonal: return out.gray(bitonal: true)
        }
    }

    /// Channels of the result for a source with `channels`.
    package func channels(from channels: Int) -> Int { tone == .color ? channels : 1 }
}
