import XCTest
@testable import ImageCodecs
@testable import Library

/// The built-in landscape is an ordinary image source: its size, the same pixels for the same rectangle whatever
/// the band height, a shrunk decode that is the full one's average, and a picture, not a flat fill.
final class ProceduralPhotoTests: XCTestCase {
    func testTheLandscapeDecodesLikeAnyOtherSource() throws {
        let photo = ProceduralPhoto()
        XCTAssertEqual(photo.info.width, 16_384)
        XCTAssertEqual(photo.info.height, 10_240)
        let rect = PixelRect(x: 8_000, y: 5_000, width: 64, height: 48)
        let whole = try photo.decode(rect)
        XCTAssertEqual(whole.width, 64)
        XCTAssertEqual(whole.height, 48)
        var banded = [UInt8]()
        _ = try photo.decode(rect, shrink: 1, bandRows: 7) { band in banded += band.bytes }
        XCTAssertEqual(banded, whole.bytes, "bands of 7 rows make the same picture")
        XCTAssertEqual(try photo.decode(rect).bytes, whole.bytes, "deterministic")
        XCTAssertGreaterThan(Set(whole.bytes).count, 20, "a picture, not a flat fill")
        let thumbnail = try photo.decode(PixelRect(x: 0, y: 0, width: 64, height: 40), shrink: 256)
        XCTAssertEqual(thumbnail.bytes.count, 64 * 40 * photo.info.channels)
        XCTAssertThrowsError(try photo.decode(PixelRect(x: 16_380, y: 0, width: 10, height: 1)), "past the right edge")
    }
}
