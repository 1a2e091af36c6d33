import POSIXSupport
import XCTest
@testable import Library
@testable import ImageCodecs

/// Failures are the file's: kept for the path and stamp they were seen with, told once per version, never for an
/// outage.
final class ImageFailuresTests: XCTestCase {
    func testAFailureHoldsForItsFileAsItWas() {
        let failures = ImageFailures()
        let told = Locked<[String]>([])
        failures.onRecord { id, _ in told.withLock { $0.append(id) } }
        let stamp = FileStamp(size: 10, modified: 1)
        let error = ImageSourceError.cannotOpen(path: "/p/a.jpg", reason: "broken")
        failures.record("a", path: "/p/a.jpg", error, stamp: stamp)
        failures.record("a", path: "/p/a.jpg", error, stamp: stamp)
        XCTAssertEqual(told.withLock { $0 }, ["a"], "told once per version of the file")
        XCTAssertNotNil(failures.failure(of: "a", path: "/p/a.jpg", stamp: stamp))
        XCTAssertNil(failures.failure(of: "a", path: "/p/a.jpg", stamp: FileStamp(size: 11, modified: 2)), "the file changed")
        XCTAssertNil(failures.failure(of: "a", path: "/q/a.jpg", stamp: stamp), "another file took the id")
        failures.record("a", path: "/p/a.jpg", error, stamp: FileStamp(size: 11, modified: 2))
        XCTAssertEqual(told.withLock { $0 }, ["a", "a"], "a new version that fails is told again")
        failures.forget(["a"])
        XCTAssertEqual(failures.ids, [])
    }

    func testAnOutageIsNotTheFilesFailure() {
        let failures = ImageFailures()
        failures.record("a", path: "s3://b/a.jpg", .unavailable(path: "s3://b/a.jpg", reason: "timed out"), stamp: nil)
        XCTAssertEqual(failures.ids, [])
    }
}
