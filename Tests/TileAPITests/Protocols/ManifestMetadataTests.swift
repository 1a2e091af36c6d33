import Pyramid
import XCTest
@testable import TileAPI
@testable import ImageCodecs

/// How a photo's metadata becomes manifest properties: navDate in UTC, rights only for the URIs the specification
/// allows, label/value pairs only for the fields present.
final class ManifestMetadataTests: XCTestCase {
    func testNavDateIsTheDateTakenInUTC() {
        XCTAssertEqual(ManifestMetadata.utc("2024-03-01T01:30:00+02:00"), "2024-02-29T23:30:00Z")
        XCTAssertEqual(ManifestMetadata.utc("2023-12-31T22:15:09-05:30"), "2024-01-01T03:45:09Z")
        XCTAssertEqual(ManifestMetadata.utc("1999-06-30T12:00:00"), "1999-06-30T12:00:00Z", "no offset: taken as UTC")
        XCTAssertEqual(ManifestMetadata.utc("0001-01-01T00:30:00+01:00"), nil, "before year 1")
        XCTAssertNil(ManifestMetadata.utc("2024-06-01"))
    }

    func testRightsOnlyForCreativeCommonsAndRightsStatements() {
        XCTAssertEqual(ManifestMetadata.rights("https://creativecommons.org/licenses/by/4.0/"), "http://creativecommons.org/licenses/by/4.0/")
        XCTAssertEqual(ManifestMetadata.rights("http://rightsstatements.org/vocab/InC/1.0/"), "http://rightsstatements.org/vocab/InC/1.0/")
        XCTAssertEqual(ManifestMetadata.rights("http://creativecommons.org/publicdomain/zero/1.0/"), "http://creativecommons.org/publicdomain/zero/1.0/")
        XCTAssertNil(ManifestMetadata.rights("https://example.com/licence"))
        XCTAssertNil(ManifestMetadata.rights("http://creativecommons.org/licenses/"))
        XCTAssertNil(ManifestMetadata.rights("All rights reserved"))
    }

    func testMembersHoldOnlyWhatThePhotoCarries() {
        var m = PhotoMetadata()
        XCTAssertTrue(ManifestMetadata(metadata: m).members(id: "http://h/iiif/manifest/a").isEmpty)
        m.make = "Canon"
        m.model = "Canon EOS R5"
        m.fNumber = 8
        m.exposureTime = "1/250"
        m.copyright = "© Anna"
        m.licence = "https://example.com/terms"
        let members = ManifestMetadata(metadata: m).members(id: "http://h/iiif/manifest/a")
        XCTAssertEqual(members.map(\.0), ["metadata", "requiredStatement"])
        XCTAssertEqual(ManifestMetadata(metadata: m).pairs.map(\.0), ["Copyright", "Licence", "Camera", "Exposure"])
        XCTAssertEqual(ManifestMetadata(metadata: m).pairs.last?.1, "1/250 s · f/8")
        XCTAssertEqual(ManifestMetadata(metadata: m).pairs[2].1, "Canon EOS R5", "the make is not said twice")
    }
}
