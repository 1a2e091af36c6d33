import Foundation
import POSIXSupport
import XCTest
@testable import Pyramid

final class TileStoreTests: XCTestCase {
    private func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tile-store-\(UUID().uuidString)").path
    }

    /// A JPEG-shaped file: start and end markers around `size - 4` bytes of `fill`.
    private func tile(_ size: Int, _ fill: UInt8) -> EncodedTile {
        EncodedTile(bytes: [0xFF, 0xD8] + [UInt8](repeating: fill, count: size - 4) + [0xFF, 0xD9], format: .jpeg)
    }

    func testBoundedByBytesEvictingLeastRecentlyUsedFiles() throws {
        let dir = directory()
        let store = try TileStore(directory: dir, budget: 3000)
        store.write(tile(1000, 1), as: "a/1.jpg")
        store.write(tile(1000, 2), as: "a/2.jpg")
        store.write(tile(1000, 3), as: "a/3.jpg")
        XCTAssertEqual(store.read("a/1.jpg", format: .jpeg)?.bytes[2], 1)   // 1 is now recent
        store.write(tile(1000, 4), as: "a/4.jpg")                           // evicts 2
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/a/2.jpg"))
        XCTAssertNil(store.read("a/2.jpg", format: .jpeg))
        let stats = store.statistics
        XCTAssertEqual([stats.tiles.bytes, stats.tiles.entries, stats.tiles.evictions, stats.tiles.hits, stats.tiles.misses, stats.writes],
                       [3000, 3, 1, 1, 1, 4])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/a").sorted()
        XCTAssertEqual(names, ["1.jpg", "3.jpg", "4.jpg"], "no temporary files left behind")
    }

    func testATileCutShortIsNeverServedAndIsRemoved() throws {
        let dir = directory()
        let store = try TileStore(directory: dir, budget: 1 << 20)
        store.write(tile(600, 7), as: "i/v/5/0_0.jpg")
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/i/v/5/0_0.jpg"))
        try whole.prefix(300).write(to: URL(fileURLWithPath: dir + "/i/v/5/0_0.jpg"))   // a crash or a full disk
        XCTAssertNil(store.read("i/v/5/0_0.jpg", format: .jpeg))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/i/v/5/0_0.jpg"))
        try Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0, count: 40)).write(to: URL(fileURLWithPath: dir + "/i/v/5/0_1.png"))
        XCTAssertNil(store.read("i/v/5/0_1.png", format: .png), "a PNG without its IEND chunk is cut short too")
    }

    func testRestartFindsTilesCountsThemAndReportsPassesThatNeverFinished() throws {
        let dir = directory()
        do {
            let store = try TileStore(directory: dir, budget: 10_000)
            store.write(tile(500, 9), as: "img%2Fa/0123456789ab-t256o0q85/3/0_0.jpg")
            store.mark(StoredPass.startedMarker(folder: "img%2Fa/0123456789ab-t256o0q85", shrink: 1))
            store.mark(StoredPass.startedMarker(folder: "img%2Fa/0123456789ab-t256o0q85", shrink: 8))
            store.mark(StoredPass.doneMarker(folder: "img%2Fa/0123456789ab-t256o0q85", shrink: 8))
        }
        let dead = dir + "/img%2Fa/0123456789ab-t256o0q85/3/.tmp-999999999-1"
        let live = dir + "/img%2Fa/0123456789ab-t256o0q85/3/.tmp-\(getpid())-77"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dead))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: live))
        let again = try TileStore(directory: dir, budget: 10_000)
        XCTAssertEqual(again.read("img%2Fa/0123456789ab-t256o0q85/3/0_0.jpg", format: .jpeg)?.bytes.count, 500, "served before the scan")
        let found = Locked<[StoredPass]?>(nil)
        again.startScan { passes in found.withLock { $0 = passes } }
        again.waitUntilScanned()
        XCTAssertEqual(found.withLock { $0 }, [StoredPass(image: "img/a", version: "0123456789ab", folder: "img%2Fa/0123456789ab-t256o0q85", shrink: 1)])
        XCTAssertEqual(again.statistics.tiles.bytes, 500)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dead), "a dead writer's temporary file is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: live), "a running writer's is not")
        again.purge(prefix: "img%2Fa")
        XCTAssertNil(again.read("img%2Fa/0123456789ab-t256o0q85/3/0_0.jpg", format: .jpeg))
        XCTAssertEqual(again.statistics.tiles.bytes, 0)
    }
}
