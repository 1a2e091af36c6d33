import XCTest
@testable import ImageCodecs

final class RowHalvingTests: XCTestCase {
    /// The 2 × 2 average of every pixel, by the definition: the n samples under it (4, 2 at the right edge or the
    /// last row of an odd height, 1 at that row's corner) summed, plus n / 2, divided by n.
    private func reference(_ a: [UInt8], _ b: [UInt8]?, width: Int, channels: Int) -> [UInt8] {
        var out: [UInt8] = []
        for x in 0 ..< (width + 1) / 2 {
            for c in 0 ..< channels {
                var samples = [a[2 * x * channels + c]]
                if 2 * x + 1 < width { samples.append(a[(2 * x + 1) * channels + c]) }
                if let b {
                    samples.append(b[2 * x * channels + c])
                    if 2 * x + 1 < width { samples.append(b[(2 * x + 1) * channels + c]) }
                }
                let n = samples.count
                out.append(UInt8((samples.reduce(0) { $0 + Int($1) } + n / 2) / n))
            }
        }
        return out
    }

    func testHalvingIsTheRoundedAverage() {
        var generator = SystemRandomNumberGenerator()
        for channels in [1, 2, 3, 4] {
            for width in [1, 2, 3, 7, 256, 257] {
                for trial in 0 ..< 4 {
                    // Extremes too: all 255 (the sum's largest), all 0, and random rows.
                    let a = (0 ..< width * channels).map { _ in trial == 0 ? 255 : trial == 1 ? 0 : UInt8.random(in: 0 ... 255, using: &generator) }
                    let b = (0 ..< width * channels).map { _ in trial == 0 ? 255 : UInt8.random(in: 0 ... 255, using: &generator) }
                    let both = a.withUnsafeBufferPointer { pa in
                        b.withUnsafeBufferPointer { pb in RowHalving.halve(pa, pb, width: width, channels: channels) }
                    }
                    XCTAssertEqual(both, reference(a, b, width: width, channels: channels), "\(channels) channels, width \(width)")
                    let one = a.withUnsafeBufferPointer { RowHalving.halve($0, nil, width: width, channels: channels) }
                    XCTAssertEqual(one, reference(a, nil, width: width, channels: channels), "one row, \(channels) channels, width \(width)")
                }
            }
        }
    }
}
