@testable import ObjectStorage
import XCTest

/// Settings taken the way AWS tools take them, and the URLs requests are signed over.
final class S3ConfigurationTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "s3config-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: folder + "/.aws", withIntermediateDirectories: true)
        try """
            [default]
            aws_access_key_id = DEFAULTKEY
            aws_secret_access_key = defaultsecret
            [archive]
            aws_access_key_id=ARCHIVEKEY
            aws_secret_access_key=archivesecret
            aws_session_token = tok
            """.write(toFile: folder + "/.aws/credentials", atomically: true, encoding: .utf8)
        try """
            [default]
            region = eu-west-1
            [profile archive]
            region = eu-central-1
            endpoint_url = http://127.0.0.1:8333
            s3 =
              addressing_style = virtual
            """.write(toFile: folder + "/.aws/config", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testTheEnvironmentWinsOverTheProfileFiles() {
        let c = S3Configuration.fromEnvironment(["HOME": folder, "AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "envsecret",
                                                 "AWS_REGION": "ap-south-1", "AWS_ENDPOINT_URL": "http://store:9000/"], addressing: .auto)
        XCTAssertEqual(c.credentials?.accessKey, "ENVKEY")
        XCTAssertNil(c.credentials?.sessionToken)
        XCTAssertEqual(c.region, "ap-south-1")
        XCTAssertEqual(c.endpoint, "http://store:9000")
    }

    func testAProfileGivesKeysTokenRegionAndEndpoint() {
        let c = S3Configuration.fromEnvironment(["HOME": folder, "AWS_PROFILE": "archive"], addressing: .auto)
        XCTAssertEqual(c.credentials?.accessKey, "ARCHIVEKEY")
        XCTAssertEqual(c.credentials?.secretKey, "archivesecret")
        XCTAssertEqual(c.credentials?.sessionToken, "tok")
        XCTAssertEqual(c.region, "eu-central-1")
        XCTAssertEqual(c.endpoint, "http://127.0.0.1:8333")
        let d = S3Configuration.fromEnvironment(["HOME": folder], addressing: .auto)
        XCTAssertEqual(d.credentials?.accessKey, "DEFAULTKEY")
        XCTAssertEqual(d.region, "eu-west-1")
        XCTAssertEqual(d.endpoint, "https://s3.eu-west-1.amazonaws.com")
    }

    func testNoCredentialsAnywhereMeansUnsignedRequests() {
        let c = S3Configuration.fromEnvironment(["HOME": "/nonexistent"], addressing: .auto)
        XCTAssertNil(c.credentials)
        XCTAssertEqual(c.region, "us-east-1")
    }

    func testURLsArePathStyleForAnEndpointAndVirtualHostForAWS() {
        let store = S3Configuration(endpoint: "http://127.0.0.1:8333", region: "us-east-1", addressing: .auto, accessKey: nil, secretKey: nil)
        XCTAssertEqual(store.url(bucket: "photos", key: "set/été 1+2~.jpg"), "http://127.0.0.1:8333/photos/set/%C3%A9t%C3%A9%201%2B2~.jpg")
        XCTAssertEqual(store.url(bucket: "photos", key: "", query: "list-type=2&prefix=set%2F"),
                       "http://127.0.0.1:8333/photos?list-type=2&prefix=set%2F")
        let aws = S3Configuration(endpoint: nil, region: "eu-west-1", addressing: .auto, accessKey: nil, secretKey: nil)
        XCTAssertEqual(aws.url(bucket: "photos", key: "a.jpg"), "https://photos.s3.eu-west-1.amazonaws.com/a.jpg")
        XCTAssertEqual(aws.url(bucket: "my.photos", key: "a.jpg"), "https://s3.eu-west-1.amazonaws.com/my.photos/a.jpg")
        let forced = S3Configuration(endpoint: "https://minio.example:9000", region: "x", addressing: .virtual, accessKey: nil, secretKey: nil)
        XCTAssertEqual(forced.url(bucket: "b", key: "k"), "https://b.minio.example:9000/k")
        let path = S3Configuration(endpoint: nil, region: "eu-west-1", addressing: .path, accessKey: nil, secretKey: nil)
        XCTAssertEqual(path.url(bucket: "photos", key: "a.jpg"), "https://s3.eu-west-1.amazonaws.com/photos/a.jpg")
    }

    func testLocations() {
        XCTAssertEqual(S3Location("s3://photos")?.prefix, "")
        XCTAssertEqual(S3Location("s3://photos/")?.listPrefix, "")
        XCTAssertEqual(S3Location("s3://photos//a/b/")?.prefix, "a/b")
        XCTAssertEqual(S3Location("s3://photos/a/b")?.listPrefix, "a/b/")
        XCTAssertEqual(S3Location("s3://photos/a")?.path(ofKey: "a/x.jpg"), "s3://photos/a/x.jpg")
        for bad in ["s3://", "s3://ab", "s3://Photos", "s3://ph_otos/x", "S3://photos", "/photos", "s3://" + String(repeating: "a", count: 64)] {
            XCTAssertNil(S3Location(bad), bad)
        }
    }

    func testDatesOfListingsAndHeaders() {
        XCTAssertEqual(HTTPDate.nanoseconds("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(HTTPDate.nanoseconds("2026-11-26T16:07:08.000Z"), 1_795_709_228 * 1_000_000_000)
        XCTAssertEqual(HTTPDate.nanoseconds("Thu, 26 Nov 2026 16:07:08 GMT"), 1_795_709_228 * 1_000_000_000)
        for bad in ["", "2026-13-01T00:00:00Z", "Thu, 26 Bog 2026 16:07:08 GMT", "yesterday", "Thu, 26 Nov 3026 16:07:08 GMT",
                    "9999-12-31T23:59:59Z"] {
            XCTAssertNil(HTTPDate.nanoseconds(bad), bad)
        }
    }
}
