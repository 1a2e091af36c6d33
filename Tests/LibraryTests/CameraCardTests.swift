import XCTest
@testable import Library

/// One photo per shot: which files of a folder are listed, and which raw and sidecar go with each.
final class CameraCardTests: XCTestCase {
    func testAPictureTakesItsRawAndSidecarARawAloneIsListedWithItsOwn() {
        let (listed, companions) = CameraCard.group(
            images: ["IMG_0005.JPG", "IMG_0005.CR2", "IMG_0006.NEF", "IMG_0007.heic", "IMG_0007.ARW", "IMG_0007.jpg", "a.png", "a.jpg"],
            sidecars: ["IMG_0005.xmp", "IMG_0006.NEF.xmp", "img_0007.XMP", "lonely.xmp"])
        XCTAssertEqual(Set(listed), ["IMG_0005.JPG", "IMG_0006.NEF", "IMG_0007.jpg", "IMG_0007.heic", "a.png", "a.jpg"])
        XCTAssertEqual(companions["IMG_0005.JPG"], CameraCard.Companions(raw: "IMG_0005.CR2", sidecar: "IMG_0005.xmp"))
        XCTAssertEqual(companions["IMG_0006.NEF"], CameraCard.Companions(raw: nil, sidecar: "IMG_0006.NEF.xmp"), "a raw alone keeps its sidecar")
        XCTAssertEqual(companions["IMG_0007.jpg"], CameraCard.Companions(raw: "IMG_0007.ARW", sidecar: "img_0007.XMP"), "JPEG before HEIC")
        XCTAssertNil(companions["IMG_0007.heic"])
        XCTAssertNil(companions["a.png"])
        XCTAssertFalse(companions.values.contains { $0.sidecar == "lonely.xmp" }, "a sidecar of no shot goes with nothing")
    }

    func testRawsAndSidecarsByExtensionAnyCase() {
        XCTAssertTrue(CameraCard.isRaw("x.Cr2") && CameraCard.isRaw("/a/b.DNG") && !CameraCard.isRaw("x.jpg") && !CameraCard.isRaw("cr2"))
        XCTAssertTrue(CameraCard.isSidecar("x.XMP") && !CameraCard.isSidecar(".x.xmp") && !CameraCard.isSidecar("x.xml"))
    }
}
