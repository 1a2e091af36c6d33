@testable import ObjectStorage
import TestSupport
import XCTest

/// ListObjectsV2 pages as stores send them, and hostile ones: parsed, or refused with a reason, never a crash.
final class ObjectListingTests: XCTestCase {
    private func page(_ body: String) throws -> ObjectListing {
        try ObjectListing(xml: Array(body.utf8))
    }

    func testAPageOfSeaweedFSReadsKeysSizesETagsAndTheNextToken() throws {
        let listing = try page("""
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>photos</Name><Prefix>set/</Prefix>\
            <IsTruncated>true</IsTruncated><NextContinuationToken>1ueG+tok/en==</NextContinuationToken>\
            <Contents><Key>set/a &amp; b/h&#233;.jpg</Key><ETag>&#34;b1946ac9&#34;</ETag><Size>6</Size>\
            <LastModified>2026-11-26T16:07:08Z</LastModified></Contents>\
            <Contents><Key>set/x.png</Key><LastModified>2026-11-26T16:07:08.000Z</LastModified><ETag>"abc-2"</ETag>\
            <Size>1048576</Size><Owner><ID>x</ID></Owner></Contents></ListBucketResult>
            """)
        XCTAssertEqual(listing.entries, [
            .init(key: "set/a & b/hé.jpg", size: 6, etag: "\"b1946ac9\"", lastModified: "2026-11-26T16:07:08Z"),
            .init(key: "set/x.png", size: 1_048_576, etag: "\"abc-2\"", lastModified: "2026-11-26T16:07:08.000Z"),
        ])
        XCTAssertTrue(listing.isTruncated)
        XCTAssertEqual(listing.nextToken, "1ueG+tok/en==")
    }

    func testAnEmptyBucketIsAnEmptyPage() throws {
        let listing = try page("<ListBucketResult><Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>")
        XCTAssertTrue(listing.entries.isEmpty)
        XCTAssertFalse(listing.isTruncated)
    }

    func testHostilePagesAreRefusedWithAReason() {
        let cases: [(String, String)] = [
            ("<Error><Code>AccessDenied</Code></Error>", "no ListBucketResult"),
            ("<ListBucketResult><Contents><Key>a.jpg</Key><Size>12", "unclosed Contents"),
            ("<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>", "without a Key"),
            ("<ListBucketResult><Contents><Key>a</Key><Size>-4</Size></Contents></ListBucketResult>", "the size \"-4\""),
            ("<ListBucketResult><Contents><Key>a</Key><Size>1e9</Size></Contents></ListBucketResult>", "the size"),
            ("<ListBucketResult><Contents><Key>a&bogus;</Key><Size>1</Size></Contents></ListBucketResult>", "entity &bogus;"),
            ("<ListBucketResult><Contents><Key>a&#0;</Key><Size>1</Size></Contents></ListBucketResult>", "entity &#0;"),
            ("<ListBucketResult><Contents><Key>a&#x110000;</Key><Size>1</Size></Contents></ListBucketResult>", "entity"),
            ("<ListBucketResult><Contents><Key>a &amp</Key><Size>1</Size></Contents></ListBucketResult>", "unterminated entity"),
            ("<ListBucketResult><IsTruncated>true", "unclosed IsTruncated"),
            ("<ListBucketResult", "unclosed tag"),
        ]
        for (body, reason) in cases {
            XCTAssertThrowsError(try page(body), body) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(body): \(error)")
            }
        }
    }

    /// The fuzz target's seeds and findings (Fuzz/Corpus/s3, Fuzz/Regressions/s3) through the same parsers.
    func testFuzzInputsParseOrFailCleanly() throws {
        let inputs = try FuzzInputs.contents(of: "s3")
        XCTAssertGreaterThanOrEqual(inputs.count, 6)
        for (_, data) in inputs {
            guard let selector = data.first else { continue }
            let rest = Array(data.dropFirst())
            switch selector % 4 {
            case 0: _ = try? ObjectListing(xml: rest)
            case 1: _ = AWSProfileFile(text: String(decoding: rest, as: UTF8.self), isConfig: selector & 4 != 0)
            case 2: _ = HTTPDate.nanoseconds(String(decoding: rest, as: UTF8.self))
            default: _ = S3Location(String(decoding: rest, as: UTF8.self))
            }
        }
    }
}
