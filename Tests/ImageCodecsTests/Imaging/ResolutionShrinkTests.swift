import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// A JPEG 2000 reduction's samples put where they were taken: the weights of each tap, the file tile's edge repeating
/// its sample, and every pixel the same whichever window it is read in.
final class ResolutionShrinkTests: XCTestCase {
    /// One row of samples through the shrink, `count` pixels from `origin`, reading what `samples` asks for.
    private func row(_ samples: [UInt8], factor: Int, reduction: Int, tile: Int, origin: Int, count: Int) -> [UInt8] {
        let shrink = ResolutionShrink(factor: factor, reduction: reduction)
        let x = ResolutionShrink.Axis(available: samples.count, tile: tile), y = ResolutionShrink.Axis(available: 1, tile: 1)
        let (first, read) = shrink.samples(origin: origin, count: count, along: x)
        var out = [UInt8](repeating: 0, count: count)
        Array(samples[first ..< first + read]).withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer {
                shrink.apply(src, width: read, height: 1, channels: 1, origin: (origin, 0), outWidth: count, outHeight: 1,
                             axes: (x, y), into: $0)
            }
        }
        return out
    }

    func testEachPixelIsItsCellsShareOfTheSamples() {
        let samples: [UInt8] = [0, 100, 200, 40]
        // Reduction 1: sample j stands at pixel 2j, our pixel j covers 2j and 2j + 1: ¾ of j, ¼ of j + 1.
        XCTAssertEqual(row(samples, factor: 1, reduction: 1, tile: 64, origin: 0, count: 4), [25, 125, 160, 40])
        // Reduction 2 (δ = ⅛): ⅝ and ⅜.
        XCTAssertEqual(row(samples, factor: 1, reduction: 2, tile: 64, origin: 0, count: 4), [38, 138, 140, 40])
        // Full resolution, halved: the plain box.
        XCTAssertEqual(row(samples, factor: 2, reduction: 0, tile: 64, origin: 0, count: 2), [50, 120])
        // Reduction 2 then halved: (⅝ a + b + ⅜ c) / 2.
        XCTAssertEqual(row(samples, factor: 2, reduction: 2, tile: 64, origin: 0, count: 2), [88, 90])
    }

    func testATilesEdgeRepeatsItsSampleInEveryRead() {
        let samples: [UInt8] = [0, 100, 200, 40]
        // Sample 2 starts the next file tile: pixel 1 does not reach it, read alone or with its neighbours.
        XCTAssertEqual(row(samples, factor: 1, reduction: 1, tile: 2, origin: 0, count: 4), [25, 100, 160, 40])
        XCTAssertEqual(row(samples, factor: 1, reduction: 1, tile: 2, origin: 1, count: 1), [100])
        XCTAssertEqual(row(samples, factor: 1, reduction: 1, tile: 2, origin: 0, count: 2), [25, 100])
    }

    func testAnyWindowIsTheWholeImagesPixels() {
        var rng = SystemRandomNumberGenerator()
        let (width, height, channels) = (37, 29, 3)
        let pixels = (0 ..< width * height * channels).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
        for (factor, reduction, tile) in [(1, 1, 8), (1, 3, 5), (2, 2, 8), (4, 5, 16), (2, 0, 37)] {
            let shrink = ResolutionShrink(factor: factor, reduction: reduction)
            let axes = (x: ResolutionShrink.Axis(available: width, tile: tile), y: ResolutionShrink.Axis(available: height, tile: tile))
            let outW = (width + factor - 1) / factor, outH = (height + factor - 1) / factor
            func window(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [UInt8] {
                let (fx, rw) = shrink.samples(origin: x, count: w, along: axes.x)
                let (fy, rh) = shrink.samples(origin: y, count: h, along: axes.y)
                var read = [UInt8]()
                for r in fy ..< fy + rh { read += pixels[(r * width + fx) * channels ..< (r * width + fx + rw) * channels] }
                var out = [UInt8](repeating: 0, count: w * h * channels)
                read.withUnsafeBufferPointer { src in
                    out.withUnsafeMutableBufferPointer {
                        shrink.apply(src, width: rw, height: rh, channels: channels, origin: (x, y), outWidth: w, outHeight: h,
                                     axes: axes, into: $0)
                    }
                }
                return out
            }
            let whole = window(0, 0, outW, outH)
            for _ in 0 ..< 20 {
                let x = Int.random(in: 0 ..< outW), y = Int.random(in: 0 ..< outH)
                let w = Int.random(in: 1 ... outW - x), h = Int.random(in: 1 ... outH - y)
                let part = window(x, y, w, h)
                for j in 0 ..< h {
                    let expected = whole[((y + j) * outW + x) * channels ..< ((y + j) * outW + x + w) * channels]
                    XCTAssertEqual(Array(part[j * w * channels ..< (j + 1) * w * channels]), Array(expected),
                                   "factor \(factor), reduction \(reduction), tile \(tile): row \(y + j) of \(x)+\(w)")
                }
            }
        }
    }
}
