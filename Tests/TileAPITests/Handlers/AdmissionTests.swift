import Foundation
import HTTPTransport
import Library
import Logging
import Pyramid
import TestSupport
@testable import ImageCodecs
@testable import TileAPI
import XCTest

/// Who may see what by construction, in process: every route that captures an image id says so, a missing image
/// gets one answer whatever the rest of its URL holds, and the access log never carries a whole token.
final class AdmissionTests: XCTestCase {
    private static let app: Application = {
        let tileOptions = TileOptions()
        let image = try! PyramidImage(id: "photo", path: TestPaths.fixtures.appendingPathComponent("baseline.jpg").path, options: tileOptions)
        let (library, tiles) = Served.images([image], options: tileOptions)
        var options = APIOptions()
        options.accessLog = false
        options.workers = 1
        return Application(options: options, tiles: tiles, library: library, logger: Logger(label: "test"),
                           viewer: .folder(TestPaths.repoRoot.appendingPathComponent("public").path))
    }()

    private func get(_ target: String, method: String = "GET") -> HTTPResponse {
        let request = HTTPRequest(method: method, target: target, versionMinor: 1, headers: [HTTPHeader(name: "host", value: "t")], keepAlive: true)
        return Self.app.respond(to: request, notes: RequestNotes(started: 0)).wait()
    }

    /// A route whose pattern holds an id capture is an image route, but for the IIIF probe, whose answer is the
    /// decision itself.
    func testEveryRouteThatNamesAnImageDeclaresIt() {
        for route in Self.app.router.routes where route.pattern.contains(where: { $0.hasPrefix("*") }) {
            switch route.access {
            case .image, .listing: continue
            default: XCTAssertEqual(route.name, "auth_probe", "\(route.pattern) captures an id but declares \(route.access)")
            }
        }
        let table = Self.app.routeTable
        XCTAssertEqual(table.split(separator: "\n").count, Self.app.router.routes.count + 1)
        XCTAssertTrue(table.contains(#"{"name":"original","pattern":["images","*id","original"],"access":"image","capture":"id","form":"plain"}"#))
    }

    /// What follows a missing id is never parsed: a bad level, a bad name and a bad IIIF size answer alike.
    func testAMissingImageIsOneAnswerWhateverFollows() {
        let answers = ["/images/ghost/tiles/x/0/0", "/images/ghost/tiles/99/0/0.gif", "/images/ghost/foo", "/images/ghost",
                       "/api/images/ghost/viewport?width=0", "/iiif/3/ghost/full/0,0/0/default.jpg", "/images/ghost_files/x/bad"]
            .map { target -> String in
                let response = get(target)
                XCTAssertEqual(response.status, .notFound, target)
                return String(decoding: response.body, as: UTF8.self)
            }
        XCTAssertEqual(Set(answers), [#"{"error":"no image with id 'ghost'","status":404}"# + "\n"], "\(answers)")
        XCTAssertEqual(get("/images/photo/tiles/x/0/0").status, .badRequest, "an image that is there has its URL parsed")
    }

    func testTokensAreShortenedInTheLog() {
        XCTAssertEqual(AccessLog.shortened("/?folder=a&share=s2.0a1b.1999999999.fYQ.MAC-secret&x=1"), "/?folder=a&share=s2.0a1b.…&x=1")
        XCTAssertEqual(AccessLog.shortened("/tiles/1/0/0?v=abc"), "/tiles/1/0/0?v=abc")
        XCTAssertEqual(AccessLog.shortened("/?share=junk"), "/?share=…")
        XCTAssertEqual(AccessLog.shortened("/?sharex=keep&token=s2.id.rest"), "/?sharex=keep&token=s2.id.…")
    }
}
