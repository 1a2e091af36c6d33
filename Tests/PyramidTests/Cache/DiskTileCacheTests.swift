import Foundation
import XCTest
@testable import Pyramid

final class DiskTileCacheTests: XCTestCase {
    private func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("disk-cache-\(UUID().uuidString)").path
    }

    private func tile(_ size: Int, _ fill: UInt8) -> EncodedTile {
        EncodedTile(bytes: [UInt8](repeating: fill, count: size), format: .jpeg)
    }

    func testBoundedByBytesEvictingLeastRecentlyUsedFiles() throws {
        let dir = directory()
        let cache = try DiskTileCache(directory: dir, budget: 3000)
        cache.write(tile(1000, 1), as: "a/1.jpg")
        cache.write(tile(1000, 2), as: "a/2.jpg")
        cache.write(tile(1000, 3), as: "a/3.jpg")
        XCTAssertEqual(cache.read("a/1.jpg", format: .jpeg)?.bytes.first, 1)   // 1 is now recent
        cache.write(tile(1000, 4), as: "a/4.jpg")                              // evicts 2
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/a/2.jpg"))
        XCTAssertNil(cache.read("a/2.jpg", format: .jpeg))
        XCTAssertEqual(cache.statistics.bytes, 3000)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/a").sorted()
        XCTAssertEqual(names, ["1.jpg", "3.jpg", "4.jpg"], "no temporary files left behind")
    }

    func testRestartFindsEarlierTilesAndRemovesTemporaryFiles() throws {
        let dir = directory()
        do {
            let cache = try DiskTileCache(directory: dir, budget: 10_000)
            cache.write(tile(500, 9), as: "img/v1/3/0_0.jpg")
        }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dir + "/img/v1/3/.tmp-interrupted"))
        let again = try DiskTileCache(directory: dir, budget: 10_000)
        XCTAssertEqual(again.read("img/v1/3/0_0.jpg", format: .jpeg)?.bytes.count, 500)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/img/v1/3/.tmp-interrupted"))
        again.purge(prefix: "img")
        XCTAssertNil(again.read("img/v1/3/0_0.jpg", format: .jpeg))
    }

    func testServiceUsesTheDiskCacheAcrossInstances() throws {
        let dir = directory()
        let options = TileOptions(rasterDirectory: NSTemporaryDirectory())
        let tile = TileCoordinate(level: 9, x: 1, y: 0)
        let first = TileService(images: [try PyramidImage(id: "p", path: Fixtures.path("baseline.jpg"), options: options)],
                                options: options, diskCache: try DiskTileCache(directory: dir, budget: 1 << 20))
        let rendered = try first.tile(image: "p", tile: tile, format: .jpeg)
        XCTAssertEqual(rendered.origin, .rendered)
        let second = TileService(images: [try PyramidImage(id: "p", path: Fixtures.path("baseline.jpg"), options: options)],
                                 options: options, diskCache: try DiskTileCache(directory: dir, budget: 1 << 20))
        let stored = try second.tile(image: "p", tile: tile, format: .jpeg)
        XCTAssertEqual(stored.origin, .disk)
        XCTAssertEqual(stored.tile.etag, rendered.tile.etag)
        XCTAssertEqual(second.tilesRendered, 0)
        XCTAssertEqual(try second.tile(image: "p", tile: tile, format: .jpeg).origin, .memory)
    }
}
