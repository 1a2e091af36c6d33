import XCTest
@testable import TileServer

final class RequestPathTests: XCTestCase {
    private func path(_ target: String) throws -> RequestPath {
        try RequestPath(HTTPRequest(method: "GET", target: target, versionMinor: 1, headers: [], keepAlive: true))
    }

    func testDecodesOnceAndSplitsQueries() throws {
        let p = try path("/images/my%20photo/tiles/1/2/3.jpg?width=10&zoom=fit&a=%2525&b=x+y")
        XCTAssertEqual(p.segments, ["images", "my photo", "tiles", "1", "2", "3.jpg"])
        XCTAssertEqual(p.query["width"], "10")
        XCTAssertEqual(p.query["a"], "%25", "decoded once, not twice")
        XCTAssertEqual(p.query["b"], "x y")
        XCTAssertEqual(try path("/").segments, [])
        XCTAssertEqual(try path("http://host:8080/healthz").segments, ["healthz"])
    }

    func testRefusesTraversalEncodedSlashesAndNUL() {
        for target in ["/../etc/passwd", "/a/%2e%2e/b", "/images/a%2Fb/tiles/0/0/0", "/a%00b", "/%2e", "/a/%zz", "/%C0%AF"] {
            XCTAssertThrowsError(try path(target), target)
        }
    }
}
