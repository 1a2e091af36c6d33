import Foundation
import Logging
import Pyramid
import HTTPTransport
import XCTest
@testable import TileAPI
import TestSupport
@testable import Library

/// What the API says of a real folder whose names are not ASCII and whose files are not all good: names as
/// written on disk, folder covers and trails, broken and unreadable files listed with why (never a path of the
/// server's), the statuses of their errors, the count in /metrics, and the viewport's fit state and pixel ratio.
final class LibraryStateTests: XCTestCase {
    private var root = ""
    private var app: Application!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("library-state-\(UUID().uuidString)").path
        let folder = root + "/Île de Ré — summer"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let baseline = try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("baseline.jpg"))
        try baseline.write(to: URL(fileURLWithPath: folder + "/Café de Flore (1).jpg"))
        // Cut in its first rows: nothing above the cut to show (a later cut shows its rows, `CutShort`).
        let scan = try XCTUnwrap(baseline.indices.first { baseline[$0] == 0xFF && baseline[$0 + 1] == 0xDA })
        try baseline.prefix(scan + 200).write(to: URL(fileURLWithPath: root + "/broken.jpg"))
        try Data("not a photo\n".utf8).write(to: URL(fileURLWithPath: root + "/garbage.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root + "/gone.jpg", withDestinationPath: root + "/moved-away.jpg")
        var visited = Set<FolderScanner.FolderIdentity>()
        let found = FolderScanner.walk(root, prefix: "", visited: &visited)
        let tileOptions = TileOptions()
        let library = ImageLibrary(options: tileOptions)
        library.apply(root: 0, scope: .all, files: found.files)
        var options = APIOptions()
        options.accessLog = false
        options.workers = 1
        app = Application(options: options, tiles: TileService(directory: library, options: tileOptions), library: library,
                          logger: Logger(label: "test"), viewer: .folder(TestPaths.repoRoot.appendingPathComponent("public").path))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func get(_ target: String) -> HTTPResponse {
        let request = HTTPRequest(method: "GET", target: target, versionMinor: 1, headers: [HTTPHeader(name: "host", value: "t")], keepAlive: true)
        return app.respond(to: request, notes: RequestNotes(started: 0)).wait()
    }

    private func json(_ target: String) throws -> [String: Any] {
        let response = get(target)
        XCTAssertEqual(response.status, .ok, target)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    func testNamesAsWrittenOnDiskWithCoversAndTrails() throws {
        let top = try json("/api/images?folder=")
        let folders = try XCTUnwrap(top["folders"] as? [[String: Any]])
        XCTAssertEqual(folders.map { $0["path"] as? String }, ["île-de-ré-summer"], "ids keep the letters")
        XCTAssertEqual(folders.first?["name"] as? String, "Île de Ré — summer")
        let cover = try XCTUnwrap(folders.first?["cover"] as? String)
        XCTAssertTrue(cover.hasPrefix("/images/%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1/tiles/"), cover)
        XCTAssertEqual(get(cover).status, .ok)

        let inner = try json("/api/images?folder=%C3%AEle-de-r%C3%A9-summer")
        XCTAssertEqual(inner["name"] as? String, "Île de Ré — summer")
        let trail = try XCTUnwrap(inner["trail"] as? [[String: String]])
        XCTAssertEqual(trail, [["path": "île-de-ré-summer", "name": "Île de Ré — summer"]])
        let image = try XCTUnwrap((inner["images"] as? [[String: Any]])?.first)
        XCTAssertEqual(image["id"] as? String, "île-de-ré-summer/café-de-flore-1")
        XCTAssertEqual(image["name"] as? String, "Café de Flore (1)")
        XCTAssertEqual(try json("/api/images/%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1")["name"] as? String, "Café de Flore (1)")
        // Addresses made with the ids of earlier versions (ASCII only) are sent on to today's.
        for (old, new) in [("/api/images/-le-de-R----summer%2FCaf--de-Flore--1-", "/api/images/%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1"),
                           ("/images/-le-de-R----summer%2FCaf--de-Flore--1-/tiles/8/0/0.jpg?v=1", "/images/%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1/tiles/8/0/0.jpg?v=1"),
                           ("/iiif/3/-le-de-R----summer%2FCaf--de-Flore--1-/info.json", "/iiif/3/%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1/info.json"),
                           ("/?image=-le-de-R----summer%2FCaf--de-Flore--1-&zoom=1", "/?image=%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1&zoom=1"),
                           ("/?folder=-le-de-R----summer", "/?folder=%C3%AEle-de-r%C3%A9-summer"),
                           ("/api/images?folder=-le-de-R----summer&limit=5", "/api/images?folder=%C3%AEle-de-r%C3%A9-summer&limit=5")] {
            let moved = get(old)
            XCTAssertEqual(moved.status.code, 301, old)
            XCTAssertEqual(moved.header("location"), new, old)
        }
        XCTAssertEqual(get("/api/images/-le-de-R----summer%2Fnothing").status, .notFound)
        XCTAssertTrue(text(get("/iiif/collection")).contains("Île de Ré — summer"), "collection labels use the name too")
    }

    func testBrokenAndUnreadableFilesAreListedWithWhyAndNoServerPath() throws {
        func listed() throws -> [String: [String: Any]] {
            let images = try XCTUnwrap(try json("/api/images?folder=")["images"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: images.map { ($0["id"] as! String, $0) })
        }
        var images = try listed()
        XCTAssertEqual(Set(images.keys), ["broken", "garbage", "gone"], "nothing is left out")
        let gone = try XCTUnwrap(images["gone"]?["error"] as? String)
        XCTAssertEqual(gone, "gone.jpg: cannot open (open(gone.jpg): No such file or directory)")
        XCTAssertEqual(images["gone"]?["name"] as? String, "gone")
        XCTAssertEqual(get("/api/images/gone").status, .notFound, "a file that is not there is 404, not 500")
        XCTAssertFalse(text(get("/api/images/gone")).contains(root))
        let garbage = try XCTUnwrap(images["garbage"]?["error"] as? String)
        XCTAssertTrue(garbage.hasPrefix("garbage.jpg: not a JPEG, PNG, TIFF, JPEG 2000, WebP, HEIF or AVIF image"), garbage)
        XCTAssertNil(images["broken"]?["error"], "a truncated file's header reads: broken is known once it is decoded")

        let tile = get("/images/broken/tiles/0/0/0.jpg")
        XCTAssertEqual(tile.status, .unprocessableContent, text(tile))
        XCTAssertTrue(text(tile).contains("broken.jpg: JPEG data ends"), text(tile))
        XCTAssertFalse(text(tile).contains(root), "no server path in an answer")
        images = try listed()
        XCTAssertEqual(images["broken"]?["error"] as? String, try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(tile.body)) as? [String: Any])["error"] as? String)
        XCTAssertEqual(try json("/api/images/broken")["error"] as? String, images["broken"]?["error"] as? String)

        for target in ["/api/images/garbage", "/api/images/garbage/viewport?width=10&height=10", "/iiif/3/garbage/info.json",
                       "/images/garbage/tiles/0/0/0.jpg"] {
            let response = get(target)
            XCTAssertEqual(response.status, .unprocessableContent, target)
            XCTAssertFalse(text(response).contains(root), target)
            XCTAssertTrue(text(response).contains("garbage.jpg"), target)
        }
        XCTAssertTrue(text(get("/metrics")).contains("\ntileserver_broken_images 3\n"))
    }

    func testTheOriginalIsTheFileItselfNamedAsOnDisk() throws {
        let id = "%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1"
        let entry = try json("/api/images/\(id)")
        XCTAssertEqual(entry["download"] as? String, "/images/\(id)/original")
        let response = get("/images/\(id)/original")
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.contentType, "image/jpeg")
        XCTAssertEqual(response.header("content-disposition"),
                       "attachment; filename=\"Caf_ de Flore (1).jpg\"; filename*=UTF-8''Caf%C3%A9%20de%20Flore%20%281%29.jpg")
        let file = try XCTUnwrap(response.file)
        let original = try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("baseline.jpg"))
        XCTAssertEqual(file.length, original.count)
        XCTAssertEqual(try file.descriptor.read(count: file.length, at: 0), Array(original))
        let etag = try XCTUnwrap(response.header("etag"))
        let again = app.respond(to: HTTPRequest(method: "GET", target: "/images/\(id)/original", versionMinor: 1,
                                                headers: [HTTPHeader(name: "host", value: "t"), HTTPHeader(name: "if-none-match", value: etag)],
                                                keepAlive: true), notes: RequestNotes(started: 0)).wait()
        XCTAssertEqual(again.status, .notModified)
        XCTAssertEqual(get("/images/nothing/original").status, .notFound)
    }

    func testAnImageIdWithPlainSlashesGetsAHint() {
        let response = get("/api/images/2024/iceland/volna")
        XCTAssertEqual(response.status, .notFound)
        XCTAssertTrue(text(response).contains("/api/images/2024%2Ficeland%2Fvolna"), text(response))
        XCTAssertTrue(text(get("/api/images/2024/iceland/volna/viewport")).contains("/api/images/2024%2Ficeland%2Fvolna/viewport"))
        XCTAssertTrue(text(get("/api/nothing")).contains("no such API route: /api/nothing"))
    }

    func testViewportCarriesFitAndPicksTilesForDevicePixels() throws {
        let id = "%C3%AEle-de-r%C3%A9-summer%2Fcaf%C3%A9-de-flore-1"
        let fit = try json("/api/images/\(id)/viewport?width=390&height=844")
        XCTAssertEqual(fit["fit"] as? Bool, true)
        XCTAssertEqual(fit["dpr"] as? Double, 1)
        let zoom = try XCTUnwrap(fit["zoom"] as? Double)
        let rounded = String(format: "%.6f", zoom)
        let again = try json("/api/images/\(id)/viewport?width=390&height=844&zoom=\(rounded)")
        XCTAssertEqual(again["fit"] as? Bool, true, "six decimals of the fit zoom are fit")
        XCTAssertEqual(again["zoom"] as? Double, zoom)
        // 701 × 576 in 100 × 100: fit 0.1427, level scale 1/4 for CSS pixels, 1/2 for three device pixels a pixel.
        let small = try json("/api/images/\(id)/viewport?width=100&height=100")
        let phone = try json("/api/images/\(id)/viewport?width=100&height=100&dpr=3")
        XCTAssertEqual(phone["zoom"] as? Double, small["zoom"] as? Double, "zooms stay in CSS pixels")
        XCTAssertEqual(phone["dpr"] as? Double, 3)
        XCTAssertEqual(small["levelScale"] as? Double, 0.25)
        XCTAssertEqual(phone["levelScale"] as? Double, 0.5)
        XCTAssertEqual((phone["level"] as? Int).map { $0 - 1 }, small["level"] as? Int)
        XCTAssertEqual(try json("/api/images/\(id)/viewport?width=390&height=844&dpr=40")["dpr"] as? Double, 4, "clamped")
        XCTAssertEqual(get("/api/images/\(id)/viewport?width=390&height=844&dpr=x").status, .badRequest)
        let zoomed = try json("/api/images/\(id)/viewport?width=390&height=844&zoom=\(zoom * 1.5)")
        XCTAssertEqual(zoomed["fit"] as? Bool, false)
    }
}
