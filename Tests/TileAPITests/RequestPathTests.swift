import HTTPTransport
import XCTest
@testable import TileAPI

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

    func testRefusesTraversalAndNUL() {
        for target in ["/../etc/passwd", "/a/%2e%2e/b", "/a%00b", "/%2e", "/a/%zz", "/%C0%AF", "/images/a%2F..%2Fb/tiles",
                       "/images/%2Fa/tiles", "/images/a%2F/tiles", "/images/a%2F.%2Fb",
                       "/images/a%2F..%2F%CC%81b/tiles/0/0/0.jpg"] {
            XCTAssertThrowsError(try path(target), target)
        }
    }

    func testMarksSegmentsWithEncodedSlashes() throws {
        let p = try path("/images/2024%2Ficeland%2fglacier/tiles/0/0/0.jpg")
        XCTAssertEqual(p.segments[1], "2024/iceland/glacier")
        XCTAssertEqual(p.slashed, [1])
        let router = HandlerTests.router
        XCTAssertEqual(try router.route(p.segments, slashed: p.slashed).0.name, "tile")
        XCTAssertThrowsError(try router.route(["tiles", "0/0", "0", "0"], slashed: [1]), "only identifier captures take slashes")
        XCTAssertThrowsError(try router.route(["index.html/x"], slashed: [0]), "nor does the static fallback")
    }
}
