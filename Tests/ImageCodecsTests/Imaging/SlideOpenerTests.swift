import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// What the opener does with slides before OpenSlide sees a byte: an object in object storage named as a slide is
/// refused with the reason (OpenSlide reads local files only), without a request; a file named as a slide that
/// OpenSlide does not take is refused, never shown as the plain TIFF inside it; a DICOM file is listed unreadable.
final class SlideOpenerTests: XCTestCase {
    func testASlideInObjectStorageIsRefusedWithTheReason() {
        XCTAssertThrowsError(try ImageOpener.open("s3://bucket/case-12/section.svs")) { error in
            guard case let .unsupported(_, message) = error as? ImageSourceError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("local files only"), message)
        }
    }

    func testATIFFNamedAsASlideThatOpenSlideDoesNotTakeIsRefused() throws {
        let path = try Fixtures.temporary(try Fixtures.bytes("pyramid-jpeg.tif"), name: "not-a-slide.svs")
        XCTAssertThrowsError(try ImageOpener.open(path)) { error in
            guard case let .unsupported(_, message) = error as? ImageSourceError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("OpenSlide"), message)
        }
        // The same bytes named as a TIFF are our TIFF reader's.
        let tiff = try Fixtures.temporary(try Fixtures.bytes("pyramid-jpeg.tif"), name: "plain.tif")
        XCTAssertEqual(try ImageOpener.open(tiff).kind, "tiff")
    }

    func testDICOMIsListedAsUnreadableWithWhatItNeeds() {
        XCTAssertEqual(SourceFormat.unreadableFormat(fileName: "scan.DCM")?.contains("OpenSlide 4"), true)
        XCTAssertTrue(SourceFormat.isImageExtension("dcm"))
        XCTAssertEqual(SourceFormat(fileExtension: "ndpi"), .slide)
    }
}
