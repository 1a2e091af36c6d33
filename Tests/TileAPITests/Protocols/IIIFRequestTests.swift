import Pyramid
import HTTPTransport
import XCTest
@testable import TileAPI
import TestSupport
@testable import ImageCodecs

/// IIIF Image API 3.0 request parsing against hand-worked answers for a 3996 × 2582 image.
final class IIIFRequestTests: XCTestCase {
    let limits = IIIFRequest.limits(width: 3996, height: 2582, maxZoom: 1)

    private func parse(_ region: String, _ size: String, _ rotation: String = "0", _ qf: String = "default.jpg") throws -> IIIFRequest {
        try IIIFRequest(region: region, size: size, rotation: rotation, qualityFormat: qf, imageWidth: 3996, imageHeight: 2582, limits: limits)
    }

    private func status(_ region: String, _ size: String, _ rotation: String = "0", _ qf: String = "default.jpg") -> Int? {
        do {
            _ = try parse(region, size, rotation, qf)
            return 200
        } catch {
            return APIError.response(for: error).status.code
        }
    }

    func testRegions() throws {
        XCTAssertEqual(try parse("full", "max").region, PixelRect(x: 0, y: 0, width: 3996, height: 2582))
        XCTAssertEqual(try parse("square", "max").region, PixelRect(x: 707, y: 0, width: 2582, height: 2582))
        XCTAssertEqual(try parse("10,20,30,40", "max").region, PixelRect(x: 10, y: 20, width: 30, height: 40))
        XCTAssertEqual(try parse("3900,2500,500,500", "max").region, PixelRect(x: 3900, y: 2500, width: 96, height: 82), "cropped")
        XCTAssertEqual(try parse("pct:50,50,50,50", "max").region, PixelRect(x: 1998, y: 1291, width: 1998, height: 1291))
        XCTAssertEqual(status("0,0,0,10", "max"), 400)
        XCTAssertEqual(status("4000,0,10,10", "max"), 400)
        XCTAssertEqual(status("1,2,3", "max"), 400)
        XCTAssertEqual(status("pct:0,0,0,5", "max"), 400)
        XCTAssertEqual(status("abcdef", "max"), 400)
    }

    func testSizes() throws {
        let full = try parse("full", "max")
        XCTAssertEqual([full.width, full.height], [3996, 2582])
        let byWidth = try parse("full", "500,")
        XCTAssertEqual([byWidth.width, byWidth.height], [500, 323])        // 2582 * 500 / 3996 = 323.07
        let byHeight = try parse("full", ",300")
        XCTAssertEqual([byHeight.width, byHeight.height], [464, 300])      // 3996 * 300 / 2582 = 464.3
        let pct = try parse("full", "pct:10")
        XCTAssertEqual([pct.width, pct.height], [400, 258])
        let confined = try parse("full", "!400,400")
        XCTAssertEqual([confined.width, confined.height], [400, 258])
        let exact = try parse("0,0,100,100", "40,60")
        XCTAssertEqual([exact.width, exact.height], [40, 60])
        XCTAssertEqual(status("0,0,100,100", "101,"), 400, "no upscaling without ^")
        XCTAssertEqual(status("0,0,100,100", "pct:200"), 400)
        XCTAssertEqual(status("0,0,100,100", "!200,300"), 400)
        XCTAssertEqual(status("0,0,100,100", "^200,"), 200, "^ upscales within maxWidth")
        XCTAssertEqual(status("full", "^4000,"), 400, "beyond maxWidth at --max-zoom 1")
        XCTAssertEqual(status("full", "0,"), 400)
        XCTAssertEqual(status("full", "full"), 400, "3.0 replaced full with max")
        XCTAssertEqual(status("full", ",,"), 400)
        let wide = IIIFRequest.limits(width: 3996, height: 2582, maxZoom: 2)
        XCTAssertEqual(try IIIFRequest.size(.max, upscale: true, 3996, 2582, wide).0, 7992)
    }

    func testRotationQualityFormat() throws {
        let r = try parse("full", "max", "!270", "gray.png")
        XCTAssertTrue(r.mirror)
        XCTAssertEqual(r.quarterTurns, 3)
        XCTAssertEqual(r.quality, .gray)
        XCTAssertEqual(r.format, .png)
        XCTAssertEqual(try parse("full", "max", "360").quarterTurns, 0)
        XCTAssertEqual(status("full", "max", "45"), 501)
        XCTAssertEqual(status("full", "max", "-90"), 400)
        XCTAssertEqual(status("full", "max", "abcd"), 400)
        XCTAssertEqual(status("full", "max", "0", "sepia.jpg"), 400)
        XCTAssertEqual(status("full", "max", "0", "default.tif"), 501)
        XCTAssertEqual(try parse("full", "max", "0", "default.webp").format, .webp)
        XCTAssertEqual(status("full", "max", "0", "default.abc"), 400)
        XCTAssertEqual(status("full", "max", "0", "default"), 400)
    }

    /// Numbers far past any image (found by the URL fuzzer: a 300-digit pct: region trapped converting to Int)
    /// are 400s, never a crash.
    func testHugeNumbersAreRefusedNotTrapped() {
        let huge = String(repeating: "9", count: 300)
        XCTAssertEqual(status("pct:10,20,\(huge),40", "!200,50"), 200, "a region past 100 % is cropped to the image")
        XCTAssertEqual(status("pct:\(huge),0,10,10", "max"), 400)
        XCTAssertEqual(status("full", "^pct:\(huge)"), 400)
        XCTAssertEqual(status("full", "^\(huge),"), 400)
        XCTAssertEqual(status("full", "^!\(huge),\(huge)"), 400)
        XCTAssertEqual(status("\(huge),0,10,10", "max"), 400)
    }

    /// Every input the URL fuzzer was seeded with or found (Fuzz/Corpus/urls, Fuzz/Regressions/urls) parses
    /// to an answer through path decoding, the tile address and the IIIF request, without trapping; a segment is
    /// marked slashed exactly when its bytes hold a '/', and then none of its parts is empty, `.` or `..`.
    func testFuzzInputsParse() throws {
        let inputs = try FuzzInputs.contents(of: "urls")
        for (_, data) in inputs {
            let request = HTTPRequest(method: "GET", target: String(decoding: data, as: UTF8.self), versionMinor: 1, headers: [], keepAlive: true)
            guard let path = try? RequestPath(request) else { continue }
            let s = path.segments
            for (index, segment) in s.enumerated() {
                let parts = segment.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
                XCTAssertEqual(path.slashed.contains(index), parts.count > 1, segment)
                XCTAssertTrue(parts.count == 1 || !parts.contains(where: RequestPath.isDotPart), segment)
            }
            if s.count >= 3 { _ = try? TilePath.parse(z: s[s.count - 3], x: s[s.count - 2], y: s[s.count - 1]) }
            guard s.count >= 4 else { continue }
            for (w, h) in [(20000, 20000), (1, 1), (9024, 3)] {
                _ = try? IIIFRequest(region: s[s.count - 4], size: s[s.count - 3], rotation: s[s.count - 2], qualityFormat: s[s.count - 1],
                                     imageWidth: w, imageHeight: h, limits: IIIFRequest.limits(width: w, height: h, maxZoom: 4))
            }
        }
        XCTAssertGreaterThanOrEqual(inputs.count, 10)
    }
}
