import Foundation
import Logging
import Library
import Pyramid
import HTTPTransport
import XCTest
@testable import TileAPI
import TestSupport
@testable import ImageCodecs

/// Every route answered in process, through the whole responder chain (method policy, CORS, metrics), with no
/// socket: the HummingbirdTesting way. Real fixture images, real tiles.
final class HandlerTests: XCTestCase {
    private static let (library, tiles): (ImageLibrary, TileService) = {
        let tileOptions = TileOptions()
        let images = [try! PyramidImage(id: "photo", path: TestPaths.fixtures.appendingPathComponent("baseline.jpg").path, options: tileOptions),
                      try! PyramidImage(id: "alpha", path: TestPaths.fixtures.appendingPathComponent("rgba.png").path, options: tileOptions),
                      try! PyramidImage(id: "album/2024/gray", path: TestPaths.fixtures.appendingPathComponent("gray.jpg").path, options: tileOptions)]
        return Served.images(images, options: tileOptions)
    }()

    private static let options: APIOptions = {
        var options = APIOptions()
        options.accessLog = false
        options.workers = 1
        return options
    }()

    private static let app = Application(options: options, tiles: tiles, library: library, logger: Logger(label: "test"),
                                         viewer: .folder(TestPaths.repoRoot.appendingPathComponent("public").path))

    /// The route table of the test application.
    static var router: Router { app.router }

    private func request(_ target: String, method: String = "GET", headers: [HTTPHeader] = []) -> (HTTPResponse, RequestNotes) {
        let request = HTTPRequest(method: method, target: target, versionMinor: 1,
                                  headers: [HTTPHeader(name: "host", value: "tiles.test")] + headers, keepAlive: true)
        let notes = RequestNotes(started: 0)
        return (Self.app.respond(to: request, notes: notes).wait(), notes)
    }

    private func get(_ target: String, headers: [HTTPHeader] = []) -> HTTPResponse { request(target, headers: headers).0 }

    private func json(_ response: HTTPResponse) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func assertImage(_ response: HTTPResponse, _ magic: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, .ok, String(decoding: response.body, as: UTF8.self), file: file, line: line)
        XCTAssertEqual(Array(response.body.prefix(magic.count)), magic, file: file, line: line)
    }

    private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF], png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

    /// Where each kind of answer runs: a listing, a manifest or a collection walks the library and reads
    /// headers, so it goes to the I/O pool; a cached tile of an image whose header is known is answered on the
    /// event loop; a miss goes to the render pool.
    func testListingsAndDocumentsNeverRunOnTheLoop() throws {
        func lane(_ target: String) -> WorkLane? {
            let request = HTTPRequest(method: "GET", target: target, versionMinor: 1, headers: [HTTPHeader(name: "host", value: "t")], keepAlive: true)
            if case let .deferred(lane, _) = Self.app.respond(to: request, notes: RequestNotes(started: 0)) { return lane }
            return nil
        }
        for target in ["/api/images", "/api/images?folder=album", "/api/images/photo", "/iiif/manifest/photo", "/iiif/collection",
                       "/iiif/collection/album", "/index.html"] {
            XCTAssertEqual(lane(target), .io, target)
        }
        _ = get("/images/photo/tiles/0/0/0.jpg")
        XCTAssertNil(lane("/images/photo/tiles/0/0/0.jpg"), "a cached tile is answered on the loop")
        XCTAssertEqual(lane("/images/photo/tiles/1/0/0.png"), .render, "a miss renders on the render pool")
    }

    func testOperations() throws {
        let (health, notes) = request("/healthz")
        XCTAssertEqual(String(decoding: health.body, as: UTF8.self), "ok\n")
        XCTAssertEqual(notes.route, "healthz")
        XCTAssertEqual(health.header("access-control-allow-origin"), "*", "CORS middleware")
        XCTAssertTrue(String(decoding: get("/metrics").body, as: UTF8.self).contains("tileserver_requests_total{route=\"healthz\",status=\"200\"}"),
                      "the observation middleware counted the health check")
    }

    func testImageAPI() throws {
        let list = try json(get("/api/images"))
        XCTAssertEqual((list["images"] as? [[String: Any]])?.map { $0["id"] as? String }, ["photo", "alpha", "album/2024/gray"])
        let one = try json(get("/api/images/photo"))
        XCTAssertEqual(one["width"] as? Int, 701)
        let version = try XCTUnwrap(one["version"] as? String)
        XCTAssertEqual(version.count, 12)
        XCTAssertEqual(one["tiles"] as? String, "/images/photo/tiles/{z}/{x}/{y}.jpg?v=\(version)")
        XCTAssertEqual(get("/api/images/nope").status, .notFound)
    }

    func testViewportAndZoomRect() throws {
        let view = try json(get("/api/images/photo/viewport?width=350&height=250"))
        let fit = min(350.0 / 701, 250.0 / 453)
        XCTAssertEqual(try XCTUnwrap(view["zoom"] as? Double), fit, accuracy: 1e-12)
        XCTAssertEqual(view["level"] as? Int, 9)
        let zoom = try json(get("/api/images/photo/zoomrect?width=350&height=250&zoom=fit&x=100&y=100"))
        XCTAssertEqual(zoom["mode"] as? String, "step")
        XCTAssertEqual(try XCTUnwrap(zoom["zoom"] as? Double), fit * 1.5, accuracy: 1e-12)
        XCTAssertEqual(get("/api/images/photo/viewport?width=0&height=250").status, .badRequest)
    }

    func testViewImages() {
        assertImage(get("/api/images/photo/viewport.jpg?width=120&height=80"), jpeg)
        assertImage(get("/api/images/alpha/viewport.png?width=120&height=80"), png)
        XCTAssertEqual(get("/api/images/photo/viewport.jpg?width=5000&height=80").status, .badRequest)
    }

    func testTilesInEveryProtocolAreOneCacheEntry() throws {
        let (first, firstNotes) = request("/images/photo/tiles/10/1/1.jpg")
        assertImage(first, jpeg)
        XCTAssertNotEqual(firstNotes.cache, .none, "the tile path answered it (a pass of an earlier request may have cut it: a hit)")
        let (byDefault, defaultNotes) = request("/tiles/10/1/1")
        XCTAssertEqual(byDefault.body, first.body, "the default image is the first one")
        XCTAssertEqual(defaultNotes.cache, .hit)
        let (deepZoom, deepZoomNotes) = request("/images/photo_files/10/1_1.jpg")
        XCTAssertEqual(deepZoom.body, first.body)
        XCTAssertEqual(deepZoomNotes.cache, .hit)
        let (iiif, iiifNotes) = request("/iiif/3/photo/256,256,256,197/256,/0/default.jpg")
        XCTAssertEqual(iiif.body, first.body, "a IIIF region on one tile is that tile")
        XCTAssertEqual(iiifNotes.cache, .hit)
        XCTAssertEqual(iiifNotes.route, "iiif_image")
        let etag = try XCTUnwrap(first.header("etag"))
        XCTAssertEqual(get("/tiles/10/1/1", headers: [HTTPHeader(name: "if-none-match", value: etag)]).status, .notModified)
        assertImage(get("/images/alpha/tiles/9/0/0.png"), png)
        XCTAssertEqual(get("/tiles/10/9/9").status, .notFound)
        XCTAssertEqual(String(decoding: get("/tiles/10/9/9").body, as: UTF8.self),
                       "{\"error\":\"level 10 has 3×2 tiles; asked for 9,9\",\"status\":404}\n")
        XCTAssertEqual(get("/tiles/10/1/1.gif").status, .badRequest)
    }

    /// The thumbnail alias is the one-tile level's tile: same bytes, same ETag, same cache entry, any format.
    /// (A level pass started by the first render may replace the tile once with its own cut: compared when settled.)
    func testThumbnailIsTheOneTileLevelsTile() throws {
        var tile = get("/images/photo/tiles/8/0/0.jpg"), thumbnail = tile, notes = RequestNotes(started: 0)
        for _ in 0 ..< 100 {
            (thumbnail, notes) = request("/images/photo/thumbnail")              // 701 × 453: level 8 is 176 × 114
            tile = get("/images/photo/tiles/8/0/0.jpg")
            if thumbnail.body == tile.body { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        assertImage(tile, jpeg)
        XCTAssertEqual(thumbnail.body, tile.body)
        XCTAssertEqual(thumbnail.header("etag"), tile.header("etag"))
        XCTAssertEqual(notes.cache, .hit)
        XCTAssertEqual(notes.route, "thumbnail")
        XCTAssertEqual(thumbnail.header("cache-control"), "no-cache", "what the file holds now, asked again each time")
        let version = try XCTUnwrap(json(get("/api/images/photo"))["version"] as? String)
        XCTAssertEqual(get("/images/photo/thumbnail?v=\(version)").header("cache-control"), "public, max-age=31536000, immutable")
        XCTAssertEqual(get("/images/photo/thumbnail?v=000000000000").status, .temporaryRedirect)
        let etag = try XCTUnwrap(tile.header("etag"))
        XCTAssertEqual(get("/images/photo/thumbnail", headers: [HTTPHeader(name: "if-none-match", value: etag)]).status, .notModified)
        XCTAssertEqual(get("/images/photo/thumbnail.jpg").body, tile.body)
        XCTAssertEqual(get("/images/photo/thumbnail.png").body, get("/images/photo/tiles/8/0/0.png").body)
        assertImage(get("/images/album%2F2024%2Fgray/thumbnail"), jpeg)
        XCTAssertEqual(get("/images/photo/thumbnail.gif").status, .badRequest)
        XCTAssertEqual(get("/images/photo/thumbnails").status, .notFound)
        XCTAssertEqual(get("/images/nope/thumbnail").status, .notFound)
    }

    /// `/?image=ID` (and a bare `/`, for the top folder's first image) carries the thumbnail at hand in the page
    /// itself, as an `<img>` with a `data:` URL and its id for the page's script; any other address, or no
    /// thumbnail at hand (nothing rendered, no store), gets the page as it is.
    func testTopPageCarriesTheAddressedThumbnailAtHand() throws {
        let plain = get("/index.html")
        let (otherLibrary, otherTiles) = Served.images([try PyramidImage(
            id: "photo", path: TestPaths.fixtures.appendingPathComponent("baseline.jpg").path, options: TileOptions())], options: TileOptions())
        let untouched = Application(options: Self.options, tiles: otherTiles, library: otherLibrary, logger: Logger(label: "test"), viewer: .folder(TestPaths.repoRoot.appendingPathComponent("public").path))
        let before = untouched.respond(to: HTTPRequest(method: "GET", target: "/?image=photo", versionMinor: 1, headers: [], keepAlive: true),
                                       notes: RequestNotes(started: 0)).wait()
        XCTAssertTrue(before.status == .ok && before.body == plain.body, "no thumbnail made yet: the page as it is, no decode for it")
        var page = plain, thumbnail = plain
        for _ in 0 ..< 100 {                       // settled: a level pass may replace the first cut once
            thumbnail = get("/images/photo/thumbnail")
            page = get("/?image=photo")
            if String(decoding: page.body, as: UTF8.self).contains(Base64.encode(thumbnail.body, .standard)) { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let html = String(decoding: page.body, as: UTF8.self)
        XCTAssertTrue(html.contains("const written = 'photo';"), html)
        XCTAssertTrue(html.contains("<img id=\"first-picture\" alt=\"\" elementtiming=\"thumbnail\" data-image=\"photo\" src=\"data:image/jpeg;base64,"
            + Base64.encode(thumbnail.body, .standard) + "\">"), html)
        XCTAssertFalse(html.contains("first-picture*/") || html.contains("<!--first-picture-->"))
        XCTAssertEqual(page.contentType, "text/html; charset=utf-8")
        let etag = try XCTUnwrap(page.header("etag"))
        XCTAssertNotEqual(etag, plain.header("etag"))
        XCTAssertEqual(get("/?image=photo", headers: [HTTPHeader(name: "if-none-match", value: etag)]).status, .notModified)
        for other in ["/?image=photo&zoom=2&cx=1&cy=1", "/?folder=", "/?image=nope", "/?image=", "/index.html?image=photo"] {
            XCTAssertTrue(get(other).body == plain.body, other)
        }
        let first = try XCTUnwrap(Self.library.page(folder: "", limit: 1)?.images.first?.id)
        _ = get("/images/\(first)/thumbnail")
        XCTAssertTrue(String(decoding: get("/").body, as: UTF8.self).contains("data-image=\"\(first)\" src=\"data:image/jpeg;base64,"))
        // Whatever an id holds, it cannot end the script, the string or the attribute it is written into.
        XCTAssertEqual(FirstPicture.scriptString("a-b_c.d (1), é'</script>\n\u{2028}"),
                       "'a-b_c.d (1), \\u00e9\\u0027\\u003c\\u002fscript\\u003e\\u000a\\u2028'")
        XCTAssertEqual(FirstPicture.attribute("a\"b<c>&d'"), "a&quot;b&lt;c&gt;&amp;d&#39;")
    }

    func testDeepZoomDescriptor() {
        let dzi = get("/images/photo.dzi")
        XCTAssertEqual(dzi.status, .ok)
        let xml = String(decoding: dzi.body, as: UTF8.self)
        XCTAssertTrue(xml.contains("Width=\"701\"") && xml.contains("Height=\"453\""), xml)
        XCTAssertEqual(get("/images/photo.xml").status, .notFound)
    }

    func testIIIF() throws {
        let redirect = get("/iiif/3/photo")
        XCTAssertEqual(redirect.status, .seeOther)
        XCTAssertEqual(redirect.header("location"), "http://tiles.test/iiif/3/photo/info.json")
        let info = try json(get("/iiif/3/photo/info.json"))
        XCTAssertEqual(info["id"] as? String, "http://tiles.test/iiif/3/photo")
        let region = get("/iiif/3/photo/10,20,300,200/150,/90/gray.png")
        assertImage(region, png)
        let pixels = try ImageDecoder.decode(region.body)
        XCTAssertEqual([pixels.width, pixels.height], [100, 150], "turned a quarter: 150 × 100 becomes 100 × 150")
        XCTAssertEqual(get("/iiif/3/photo/full/max/45/default.jpg").status, .notImplemented)
    }

    func testStaticFilesAndMethods() {
        let index = get("/")
        XCTAssertEqual(index.status, .ok)
        XCTAssertEqual(index.contentType, "text/html; charset=utf-8")
        XCTAssertEqual(get("/nothing-here.js").status, .notFound)
        let (preflight, notes) = request("/tiles/0/0/0", method: "OPTIONS")
        XCTAssertEqual(preflight.status, .noContent)
        XCTAssertEqual(notes.route, "options")
        let (refused, refusedNotes) = request("/tiles/0/0/0", method: "DELETE")
        XCTAssertEqual(refused.status, .methodNotAllowed)
        XCTAssertEqual(refused.header("allow"), "GET, HEAD, OPTIONS")
        XCTAssertEqual(refused.header("access-control-allow-origin"), "*")
        XCTAssertEqual(refusedNotes.route, "invalid")
        XCTAssertEqual(get("/images/%2e%2e/tiles/0/0/0").status, .badRequest)
    }

    func testIdsWithSlashesWorkEncodedInEveryProtocolAndNowhereElse() throws {
        let entry = try json(get("/api/images/album%2F2024%2Fgray"))
        XCTAssertEqual(entry["id"] as? String, "album/2024/gray")
        XCTAssertEqual(entry["folder"] as? String, "album/2024")
        XCTAssertEqual(entry["manifest"] as? String, "/iiif/manifest/album%2F2024%2Fgray")
        let version = try XCTUnwrap(entry["version"] as? String)
        XCTAssertEqual(entry["tiles"] as? String, "/images/album%2F2024%2Fgray/tiles/{z}/{x}/{y}.jpg?v=\(version)")
        for target in ["/images/album%2F2024%2Fgray/tiles/0/0/0.jpg", "/images/album%2F2024%2Fgray_files/0/0_0.jpg",
                       "/iiif/3/album%2F2024%2Fgray/full/64,/0/default.jpg", "/iiif/3/album%2F2024%2Fgray@\(version)/0,0,64,64/32,/0/default.jpg",
                       try XCTUnwrap(entry["thumbnail"] as? String)] {
            assertImage(get(target), jpeg)
        }
        XCTAssertEqual(get("/images/album%2F2024%2Fgray.dzi").status, .ok)
        XCTAssertEqual(try json(get("/iiif/3/album%2f2024%2fgray/info.json"))["id"] as? String,
                       "http://tiles.test/iiif/3/album%2F2024%2Fgray", "lower-case %2f is the same id")
        XCTAssertEqual(get("/api/images/album%2F2024%2Fgray/viewport?width=100&height=100").status, .ok)
        // Encoded slashes anywhere but an identifier, or hiding '..' or empty parts, are refused.
        for target in ["/api%2Fimages", "/images/album%2F..%2Fphoto/tiles/0/0/0.jpg", "/iiif/3/album%2F%2Fgray/info.json",
                       "/index.html%2F", "/tiles/0%2F0/0/0"] {
            XCTAssertEqual(get(target).status, .badRequest, target)
        }
        XCTAssertEqual(get("/images/album/2024/gray/tiles/0/0/0.jpg").status, .notFound, "plain slashes are path segments")
    }

    func testListingsArePagedAndFoldersCounted() throws {
        var ids: [String] = [], next: String? = "/api/images?limit=1"
        while let target = next {
            let page = try json(get(target))
            ids += (page["images"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            next = page["next"] as? String
        }
        XCTAssertEqual(ids, ["photo", "alpha", "album/2024/gray"])
        let top = try json(get("/api/images?folder="))
        XCTAssertEqual((top["folders"] as? [[String: Any]])?.map { $0["path"] as? String }, ["album"])
        XCTAssertEqual((top["folders"] as? [[String: Any]])?.map { $0["count"] as? Int }, [1])
        XCTAssertEqual((try json(get("/api/images?folder=album%2F2024"))["images"] as? [[String: Any]])?.count, 1)
        XCTAssertEqual(get("/api/images?folder=nowhere").status, .notFound)
        XCTAssertEqual(get("/api/images?after=%21%21").status, .badRequest)
        XCTAssertEqual(get("/api/images?limit=10001").status, .badRequest)
        let listing = get("/api/images")
        let etag = try XCTUnwrap(listing.header("etag"))
        XCTAssertEqual(get("/api/images", headers: [HTTPHeader(name: "if-none-match", value: etag)]).status, .notModified)
    }

    func testManifestsAndCollectionsFollowTheHost() throws {
        let manifest = try json(get("/iiif/manifest/album%2F2024%2Fgray", headers: [HTTPHeader(name: "x-forwarded-proto", value: "https")]))
        XCTAssertEqual(manifest["type"] as? String, "Manifest")
        XCTAssertEqual(manifest["id"] as? String, "https://tiles.test/iiif/manifest/album%2F2024%2Fgray")
        let canvas = try XCTUnwrap((manifest["items"] as? [[String: Any]])?.first)
        XCTAssertEqual(canvas["width"] as? Int, try ImageOpener.open(TestPaths.fixtures.appendingPathComponent("gray.jpg").path).info.width)
        let top = try json(get("/iiif/collection"))
        XCTAssertEqual((top["items"] as? [[String: Any]])?.compactMap { $0["type"] as? String }, ["Collection", "Manifest", "Manifest"])
        let album = try json(get("/iiif/collection/album"))
        XCTAssertEqual((album["items"] as? [[String: Any]])?.first?["id"] as? String, "http://tiles.test/iiif/collection/album%2F2024")
        XCTAssertEqual(get("/iiif/collection/nowhere").status, .notFound)
        XCTAssertEqual(get("/iiif/manifest/nothing").status, .notFound)
    }
}
