import Foundation
import HTTPTransport
import Logging
import Library
import Pyramid
import XCTest
@testable import TileAPI
import TestSupport

/// The fast path against the routes, in process, on real fixture tiles: every request it takes gets the answer
/// the routes give (status, fields, body), counted the same way in `/metrics`; everything it must not answer
/// it declines, untouched, for the routes.
final class CachedTileResponderTests: XCTestCase {
    private var tiles: TileService!
    private var app: Application!
    private var fast: (any FastResponder)!

    override func setUpWithError() throws {
        var options = APIOptions()
        options.accessLog = false
        options.workers = 1
        let tileOptions = TileOptions()
        let images = [try PyramidImage(id: "photo", path: TestPaths.fixtures.appendingPathComponent("baseline.jpg").path, options: tileOptions),
                      try PyramidImage(id: "alpha", path: TestPaths.fixtures.appendingPathComponent("rgba.png").path, options: tileOptions),
                      try PyramidImage(id: "2024/iceland/photo", path: TestPaths.fixtures.appendingPathComponent("baseline.jpg").path, options: tileOptions),
                      try PyramidImage(id: "été/café", path: TestPaths.fixtures.appendingPathComponent("baseline.jpg").path, options: tileOptions)]
        let library: ImageLibrary
        (library, tiles) = Served.images(images, options: tileOptions)
        app = Application(options: options, tiles: tiles, library: library, logger: Logger(label: "test"),
                          viewer: .folder(TestPaths.repoRoot.appendingPathComponent("public").path))
        fast = app.makeFastResponder()
    }

    private struct NotARequest: Error {}

    /// The request's raw bytes through the parser, as the connection would hand them over.
    private func raw(_ target: String, method: String = "GET", headers: [String] = []) -> [UInt8] {
        Array((["\(method) \(target) HTTP/1.1", "Host: tiles.test"] + headers + ["", ""]).joined(separator: "\r\n").utf8)
    }

    /// The fast answer as status, fields (by lower-cased name) and body; nil if it declined.
    private func fastAnswer(_ bytes: [UInt8]) throws -> (notModified: Bool, fields: [String: String], body: [UInt8])? {
        try bytes.withUnsafeBytes { bytes in
            guard case let .head(head) = HTTPParser().scan(bytes) else { throw NotARequest() }
            var answer: (Bool, [String: String], [UInt8])?
            var calls = 0
            let taken = fast.answer(RequestView(bytes: bytes, head: head), started: 0) { response in
                calls += 1
                var fields: [String: String] = [:]
                let text = String(decoding: response.fields, as: UTF8.self) + String(decoding: response.moreFields, as: UTF8.self)
                for line in text.split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    fields[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
                }
                answer = (response.notModified, fields, Array(response.body))
            }
            XCTAssertEqual(calls, taken ? 1 : 0, "send is called once exactly when the request is taken")
            return answer
        }
    }

    /// The routes' answer to the same bytes.
    private func routed(_ bytes: [UInt8]) -> HTTPResponse {
        bytes.withUnsafeBytes { bytes in
            guard case let .head(head) = HTTPParser().scan(bytes) else { fatalError() }
            return app.respond(to: HTTPRequest(head, in: bytes), notes: RequestNotes(started: 0)).wait()
        }
    }

    private func assertSame(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
        let answer = try XCTUnwrap(try fastAnswer(bytes), "taken: \(String(decoding: bytes, as: UTF8.self))", file: file, line: line)
        let routes = routed(bytes)
        XCTAssertEqual(answer.notModified ? HTTPStatus.notModified : .ok, routes.status, file: file, line: line)
        if routes.status == .ok { // a 304's body is not sent (the transport frames it with length 0)
            XCTAssertEqual(answer.body, routes.body, file: file, line: line)
        }
        var expected = ["content-type": routes.contentType]
        for header in routes.headers { expected[header.name.lowercased()] = header.value }
        XCTAssertEqual(answer.fields, expected, file: file, line: line)
    }

    func testEveryTileURLFormAnswersAsTheRoutesDo() throws {
        let version = try tiles.image("photo")!.current().version
        let warm = ["/images/photo/tiles/10/1/0.jpg", "/images/alpha/tiles/10/0/0.png", "/tiles/9/0/0.jpg",
                    "/images/2024%2Ficeland%2Fphoto/tiles/10/1/0.jpg", "/images/%C3%A9t%C3%A9%2Fcaf%C3%A9/tiles/10/1/0.jpg"]
        for target in warm { XCTAssertEqual(routed(raw(target)).status, .ok, target) }
        let etag = try XCTUnwrap(routed(raw("/tiles/9/0/0")).header("etag"))
        for request in [raw("/images/photo/tiles/10/1/0.jpg"), raw("/images/photo/tiles/10/1/0.JPEG"), raw("/images/photo_files/10/1_0.jpg"),
                        raw("/images/photo/tiles/10/1/0.jpg?v=\(version)"), raw("/images/photo_files/10/1_0.jpg?v=\(version)"),
                        raw("/images/alpha/tiles/10/0/0.png"), raw("/tiles/9/0/0"), raw("/tiles/9/0/0.jpg"),
                        raw("/images/photo/tiles/10/1/0.jpg", method: "HEAD"),
                        raw("/tiles/9/0/0.jpg", headers: ["If-None-Match: \(etag)"]),
                        raw("/tiles/9/0/0.jpg", headers: ["If-None-Match: \"other\", W/\(etag)"]),
                        raw("/tiles/9/0/0.jpg", headers: ["If-None-Match: *"]),
                        raw("/tiles/9/0/0.jpg", headers: ["if-none-match: \"other\""]),
                        // An image in a folder: its id's slashes encoded, the fast path's one escape.
                        raw("/images/2024%2Ficeland%2Fphoto/tiles/10/1/0.jpg"), raw("/images/2024%2ficeland%2Fphoto/tiles/10/1/0.jpg"),
                        raw("/images/2024%2Ficeland%2Fphoto_files/10/1_0.jpg"),
                        // Ids keep letters beyond ASCII: their UTF-8 bytes escaped, either case.
                        raw("/images/%C3%A9t%C3%A9%2Fcaf%C3%A9/tiles/10/1/0.jpg"), raw("/images/%c3%a9t%c3%a9%2fcaf%c3%a9/tiles/10/1/0.jpg"),
                        raw("/images/%C3%A9t%C3%A9%2Fcaf%C3%A9_files/10/1_0.jpg")] {
            try assertSame(request)
            try assertSame(request) // the second time from the loop's own copy
        }
    }

    /// IIIF image requests that name a tile of the pyramid (as viewers derive them from `info.json`): the tile URL's
    /// bytes, with IIIF's fields, answered here as the routes answer them.
    func testIIIFRequestsForATileAnswerAsTheRoutesDo() throws {
        let version = try tiles.image("photo")!.current().version
        for target in ["/images/photo/tiles/10/1/0.jpg", "/images/photo/tiles/9/0/0.jpg", "/images/alpha/tiles/10/0/0.png",
                       "/images/2024%2Ficeland%2Fphoto/tiles/10/1/0.jpg", "/images/photo/tiles/10/2/1.webp"] {
            XCTAssertEqual(routed(raw(target)).status, .ok, target)
        }
        let etag = try XCTUnwrap(routed(raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpg")).header("etag"))
        let tileBytes = routed(raw("/images/photo/tiles/10/1/0.jpg")).body
        for request in [raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpg"), raw("/iiif/3/photo/256,0,256,256/256,256/0/default.jpg"),
                        raw("/iiif/3/photo/256,0,256,256/256,/0/color.jpg"), raw("/iiif/3/photo@\(version)/256,0,256,256/256,/0/default.jpg"),
                        // Level 9: a 512 px cell of the full image, 256 × 227 pixels; the region may run past the image.
                        raw("/iiif/3/photo/0,0,512,453/256,/0/default.jpg"), raw("/iiif/3/photo/0,0,512,512/256,227/0/default.jpg"),
                        raw("/iiif/3/alpha/0,0,256,256/256,/0/default.png"), raw("/iiif/3/photo/512,256,189,197/189,/0/default.webp"),
                        raw("/iiif/3/2024%2Ficeland%2Fphoto/256,0,256,256/256,/0/default.jpg"),
                        raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpg", method: "HEAD"),
                        raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpg", headers: ["If-None-Match: \(etag)"])] {
            try assertSame(request)
            try assertSame(request)
        }
        XCTAssertEqual(try XCTUnwrap(try fastAnswer(raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpg"))).body, tileBytes,
                       "the tile's own bytes")
        let metrics = String(decoding: routed(raw("/metrics")).body, as: UTF8.self)
        // Each assertSame: one answer here, one by the routes, counted alike.
        XCTAssertTrue(metrics.contains("tileserver_requests_total{route=\"iiif_image\",status=\"304\"} 4\n"), metrics)
        // Everything else goes to the routes: another size, region, rotation, quality or format, another version.
        for request in [raw("/iiif/3/photo/256,0,256,256/128,/0/default.jpg"), raw("/iiif/3/photo/250,0,256,256/256,/0/default.jpg"),
                        raw("/iiif/3/photo/256,0,256,256/256,/90/default.jpg"), raw("/iiif/3/photo/256,0,256,256/256,/0/gray.jpg"),
                        raw("/iiif/3/photo/256,0,256,256/256,/!0/default.jpg"), raw("/iiif/3/photo/full/256,/0/default.jpg"),
                        raw("/iiif/3/photo/256,0,256,256/max/0/default.jpg"), raw("/iiif/3/photo/256,0,256,256/!256,256/0/default.jpg"),
                        raw("/iiif/3/photo/256,0,256,256/^512,/0/default.jpg"), raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpeg"),
                        raw("/iiif/3/photo@old/256,0,256,256/256,/0/default.jpg"), raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpg?v=1"),
                        raw("/iiif/3/photo/256,0,256,256/,256/0/default.jpg"), raw("/iiif/3/photo/256,0,256,0/256,/0/default.jpg"),
                        raw("/iiif/3/photo/9000,0,256,256/256,/0/default.jpg"), raw("/iiif/2/photo/256,0,256,256/256,/0/default.jpg"),
                        raw("/iiif/3/photo/info.json"), raw("/iiif/3/photo/256,0,256,256/256,/0/default.jpg", method: "POST")] {
            XCTAssertNil(try fastAnswer(request), String(decoding: request, as: UTF8.self))
        }
    }

    func testDeclinesWhatTheRoutesMustAnswer() throws {
        XCTAssertEqual(routed(raw("/images/photo/tiles/10/1/0.jpg")).status, .ok)
        let declined = [
            raw("/images/alpha/tiles/9/0/0.webp"), // not cached
            raw("/images/photo/tiles/10/1/0.jpg?v=old"), // another version: the routes send a 307
            raw("/images/photo/tiles/10/1/0.jpg?v=x&y=1"), raw("/images/photo/tiles/10/1/0.jpg?"),
            raw("/images/ph%6Fto/tiles/10/1/0.jpg"), raw("/images/nothing/tiles/10/1/0.jpg"), raw("/images/../tiles/10/1/0.jpg"),
            raw("/images/photo/tiles/10/1/0.gif"), raw("/images/photo/tiles/10/1/0.jpg", method: "POST"),
            raw("/images/photo/tiles/10/1/0.jpg", method: "OPTIONS"), raw("/images/photo/tiles/10/1/0000000000.jpg"),
            raw("/images/photo/tiles/10/1"), raw("/images/photo/tiles/10/1/0/0.jpg"), raw("/images/photo_files/10/10.jpg"),
            raw("/api/images"), raw("//images/photo/tiles/10/1/0.jpg"),
            // Encoded slashes only inside an id, between names: what the routes refuse, the fast path leaves to them.
            raw("/images/2024%2F%2Ficeland%2Fphoto/tiles/10/1/0.jpg"), raw("/images/2024%2F..%2Fphoto/tiles/10/1/0.jpg"),
            raw("/images/%2Fphoto/tiles/10/1/0.jpg"), raw("/images/photo%2F/tiles/10/1/0.jpg"), raw("/tiles/9%2F0/0/0.jpg"),
            raw("/images/photo/tiles/10%2F1/0.jpg"), raw("/images/2024%2Ficeland%2Fphoto/tiles/10/1/0.jpg?v=%2F"),
            raw("/images/2024%2Ficeland%2Fph%6Fto/tiles/10/1/0.jpg"), raw("/images/2024%2Ficeland%2Fphoto%2/tiles/10/1/0.jpg"),
            // High bytes only as escapes inside an id, and only ones that are the id's UTF-8.
            raw("/images/%C3%A9t%C3%A9%2Fcaf%C3/tiles/10/1/0.jpg"), raw("/images/%FF%2Fcaf%C3%A9/tiles/10/1/0.jpg"),
            raw("/tiles/%C3%A9/0/0.jpg"), raw("/images/%C3%A9t%C3%A9%2Fcaf%C3%A9/tiles/10/1/0.jpg?v=%C3%A9"),
            raw("/images/%C3%A9t%C3%A9%2Fcaf%C3%A9/tiles/10/1/0%C3%A9.jpg"), raw("/images/%C3%A9t%C3%A9%2Fcaf%C3%A9/tiles/10/1/0.jpg%C3%A9"),
        ]
        for request in declined {
            XCTAssertNil(try fastAnswer(request), String(decoding: request, as: UTF8.self))
        }
    }

    /// Cached tiles are counted as the routes count them: route `tile` with their status, and cache hits, also
    /// for answers from the loop's own copies.
    func testCountsAsTheRoutesDo() throws {
        XCTAssertEqual(routed(raw("/images/photo/tiles/10/1/0.jpg")).status, .ok)
        let hits = tiles.cache.statistics.hits
        for _ in 0 ..< 3 { XCTAssertNotNil(try fastAnswer(raw("/images/photo/tiles/10/1/0.jpg"))) }
        let etag = try XCTUnwrap(routed(raw("/images/photo/tiles/10/1/0.jpg")).header("etag"))
        XCTAssertNotNil(try fastAnswer(raw("/images/photo/tiles/10/1/0.jpg", headers: ["If-None-Match: \(etag)"])))
        let metrics = String(decoding: routed(raw("/metrics")).body, as: UTF8.self)
        XCTAssertTrue(metrics.contains("tileserver_requests_total{route=\"tile\",status=\"200\"} 5\n"), metrics) // 1 + 3 + 1 routed
        XCTAssertTrue(metrics.contains("tileserver_requests_total{route=\"tile\",status=\"304\"} 1\n"), metrics)
        XCTAssertTrue(metrics.contains("tileserver_tile_cache_hits_total \(hits + 5)\n"), metrics)
    }

    /// A removal from the cache (a purge) empties the loop's own copies too: the next request is the routes' (a render), not an old copy.
    /// (The first render may start a level pass that puts tiles in the cache: the purge waits until it is done,
    /// or the tile would be answered, rightly, from the shared cache.)
    func testPurgedTilesAreNotAnsweredFromTheLoopsCopies() throws {
        XCTAssertEqual(routed(raw("/images/photo/tiles/10/1/0.jpg")).status, .ok)
        XCTAssertNotNil(try fastAnswer(raw("/images/photo/tiles/10/1/0.jpg")))
        let deadline = Date().addingTimeInterval(30)
        while tiles.statistics().passes.running + tiles.statistics().passes.queued > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        tiles.cache.removeAll { $0.image == "photo" }
        XCTAssertNil(try fastAnswer(raw("/images/photo/tiles/10/1/0.jpg")))
    }
}
