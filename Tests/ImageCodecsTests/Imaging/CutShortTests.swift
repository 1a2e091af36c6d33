import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// A baseline JPEG cut short (`CutShort`): the image is the rows above the cut, pixel for pixel what the whole
/// file decodes to there, at every shrink; data after a whole image is no cut; a cut in the first rows leaves
/// the file broken, its decode a truncation.
final class CutShortTests: XCTestCase {
    func testTheRowsAboveTheCutAreTheWholeFilesRows() throws {
        let bytes = try Fixtures.bytes("baseline.jpg")
        let whole = try ImageOpener.open(Fixtures.path("baseline.jpg"))
        XCTAssertNil(whole.info.cutShort)
        for share in [3, 5, 7] {
            let path = try Fixtures.settled(Array(bytes.prefix(bytes.count * share / 10)), name: "cut-\(share).jpg")
            let cut = try ImageOpener.open(path)
            let found = try XCTUnwrap(cut.info.cutShort, "cut at \(share)0 %")
            XCTAssertEqual(found.of, whole.info.height)
            XCTAssertEqual(cut.info.height, found.rows)
            XCTAssertEqual(cut.info.width, whole.info.width)
            // Roughly the share of the bytes: the rows are spread evenly through this file's data.
            XCTAssertEqual(Double(found.rows) / Double(found.of), Double(share) / 10, accuracy: 0.15)
            XCTAssertTrue(found.warning.contains("of its \(whole.info.height) rows"), found.warning)
            for shrink in [1, 2, 4, 8, 16] {
                let part = try cut.decodeAll(shrink: shrink)
                let (w, h) = cut.size(shrink: shrink)
                XCTAssertEqual([part.width, part.height], [w, h])
                // Every row but the last at a shrink (which averages only the rows above the cut) is the whole
                // file's, to the bit.
                let rows = shrink == 1 ? h : h - 1
                let expected = try whole.decode(PixelRect(x: 0, y: 0, width: w, height: rows), shrink: shrink)
                XCTAssertEqual(part.cropped(to: PixelRect(x: 0, y: 0, width: w, height: rows)).bytes, expected.bytes,
                               "cut at \(share)0 %, shrink \(shrink)")
            }
        }
    }

    func testDataAfterAWholeImageIsNoCut() throws {
        let bytes = try Fixtures.bytes("baseline.jpg")
        let clip = Array("....ftypmp42".utf8) + [UInt8](repeating: 7, count: 5000)
        let source = try ImageOpener.open(Fixtures.settled(bytes + clip, name: "motion-photo.jpg"))
        XCTAssertNil(source.info.cutShort)
        XCTAssertEqual(source.info.height, 453)
        XCTAssertNoThrow(try source.decodeAll(shrink: 4))
    }

    func testACutInTheFirstRowsIsStillATruncation() throws {
        let bytes = try Fixtures.bytes("baseline.jpg")
        let scan = try XCTUnwrap((0 ..< bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let path = try Fixtures.settled(Array(bytes.prefix(scan + 200)), name: "cut-at-once.jpg")
        let source = try ImageOpener.open(path)
        XCTAssertNil(source.info.cutShort)
        XCTAssertEqual(source.info.height, 453)
        XCTAssertThrowsError(try source.decodeAll(shrink: 2)) { error in
            guard case .truncated = error as? ImageSourceError else { return XCTFail("\(error)") }
        }
    }

    func testAFileWrittenMomentsAgoIsUnfinishedNotCutShort() throws {
        let bytes = try Fixtures.bytes("baseline.jpg")
        let path = try Fixtures.temporary(Array(bytes.prefix(bytes.count / 2)), name: "being-written.jpg")
        let source = try ImageOpener.open(path)
        XCTAssertNil(source.info.cutShort, "it may be being written still")
        XCTAssertEqual(source.info.height, 453)
        XCTAssertThrowsError(try source.decodeAll(shrink: 2))
    }

    func testAProgressiveFileCutShortIsATruncationAsBefore() throws {
        let bytes = try Fixtures.bytes("progressive.jpg")
        let path = try Fixtures.settled(Array(bytes.prefix(bytes.count / 2)), name: "cut-progressive.jpg")
        let source = try? ImageOpener.open(path)
        XCTAssertNil(source?.info.cutShort)
        XCTAssertThrowsError(try ImageOpener.open(path).decodeAll(shrink: 2))
    }
}
