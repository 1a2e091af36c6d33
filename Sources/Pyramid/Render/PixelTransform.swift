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

    /// The columns and rows of the unturned, unmirrored `width × height` picture that become output rows
    /// `strips` once transformed: how an output made in bands asks for each band.
    func unturned(_ strips: Range<Int>, width: Int, height: Int) -> (columns: Range<Int>, rows: Range<Int>) {
        var columns = 0 ..< width, rows = 0 ..< height
        switch quarterTurns {
        case 0: rows = strips
        case 2: rows = height - strips.upperBound ..< height - strips.lowerBound
        case 1: columns = strips
        default: columns = width - strips.upperBound ..< width - strips.lowerBound
        }
        if mirror { columns = width - columns.upperBound ..< width - columns.lowerBound }
        return (columns, rows)
    }

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
