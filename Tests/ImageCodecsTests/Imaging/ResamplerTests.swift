import XCTest
@testable import ImageCodecs
import ImageTestSupport

final class ResamplerTests: XCTestCase {
    /// The definition, one output sample at a time: each output row's vertical taps summed in order into a float
    /// per source sample, then the horizontal taps of those in order, rounded half up and clamped.
    private func reference(_ source: PixelBuffer, columns: Resampler.Taps, rows: Resampler.Taps) -> [UInt8] {
        let c = source.channels
        var out: [UInt8] = []
        for row in rows.taps {
            for column in columns.taps {
                for ch in 0 ..< c {
                    var sum: Float = 0
                    for (k, wx) in column.weights.enumerated() {
                        var vertical: Float = 0
                        for (j, wy) in row.weights.enumerated() {
                            let sample = Float(source.bytes[((row.first + j) * source.width + column.first + k) * c + ch])
                            vertical = j == 0 ? wy * sample : vertical + wy * sample
                        }
                        sum += wx * vertical
                    }
                    let t = max(0, min(255, sum)) + 0.5
                    out.append(UInt8(t.rounded(.down)))
                }
            }
        }
        return out
    }

    /// Shrinks by factors between 1 and 2 and beyond (the taps then differ in number from pixel to pixel),
    /// grows, and keeps the scale, for 1, 3 and 4 channels: always the definition's bytes.
    func testEveryScaleGivesTheDefinitionsBytes() {
        var generator = SystemRandomNumberGenerator()
        for channels in [1, 3, 4] {
            let width = 61, height = 37
            let source = PixelBuffer(width: width, height: height, channels: channels,
                                     bytes: (0 ..< width * height * channels).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
            for (outWidth, outHeight) in [(61, 37), (60, 30), (47, 29), (33, 20), (31, 19), (20, 11), (7, 5), (1, 1), (90, 50), (122, 74)] {
                let columns = Resampler.Taps(start: 0, span: Double(width), count: outWidth, limit: width, range: 0 ..< outWidth)
                let rows = Resampler.Taps(start: 0, span: Double(height), count: outHeight, limit: height, range: 0 ..< outHeight)
                let made = Resampler.resample(source, originX: 0, originY: 0, columns: columns, rows: rows)
                XCTAssertEqual(made.bytes, reference(source, columns: columns, rows: rows), "\(channels) channels to \(outWidth)×\(outHeight)")
            }
            // A fractional window, as IIIF regions between levels ask.
            let columns = Resampler.Taps(start: 3.7, span: 40.3, count: 23, limit: width, range: 0 ..< 23)
            let rows = Resampler.Taps(start: 1.2, span: 30.9, count: 17, limit: height, range: 0 ..< 17)
            XCTAssertEqual(Resampler.resample(source, originX: 0, originY: 0, columns: columns, rows: rows).bytes,
                           reference(source, columns: columns, rows: rows), "\(channels) channels, a fractional window")
        }
    }
}
