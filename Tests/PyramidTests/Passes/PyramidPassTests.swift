import Foundation
import POSIXSupport
import XCTest
@testable import Pyramid
@testable import ImageCodecs
import ImageTestSupport
@testable import TileGeometry

final class PyramidPassTests: XCTestCase {
    private let large = Fixtures.directory.appendingPathComponent("gallery/large.jpg").path

    private func temporaryDirectory() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("passes-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    private func service(_ path: String, store: String?, limits: ImageLimits = ImageLimits()) throws -> TileService {
        let options = TileOptions(rasterDirectory: NSTemporaryDirectory(), limits: limits)
        return TileService(images: [try PyramidImage(id: "large", path: path, options: options)], options: options,
                           store: try store.map { try TileStore(directory: $0, budget: 1 << 30) })
    }

    private func waitFor(_ condition: () -> Bool, seconds: Double = 60) {
        let end = Date().addingTimeInterval(seconds)
        while !condition() && Date() < end { usleep(5000) }
        XCTAssertTrue(condition(), "timed out")
    }

    /// The two passes store every tile of every level, once each; the full pass's levels are byte for byte what
    /// `tileserver build` writes (the same cascade of 2 × 2 averages, the same encoder), and a second service on
    /// the same store answers from it without decoding anything.
    func testPassesStoreTheWholePyramidAsTheBuilderCutsIt() throws {
        let dir = temporaryDirectory()
        let s = try service(large, store: dir + "/store")
        let image = try XCTUnwrap(s.image("large"))
        let snapshot = try image.current()
        let geometry = snapshot.geometry
        XCTAssertEqual(geometry.maxLevel, 12)
        _ = try s.tile(image: "large", tile: TileCoordinate(level: 5, x: 0, y: 0), format: .jpeg)    // the 1/8 pass
        _ = try s.tile(image: "large", tile: TileCoordinate(level: 12, x: 0, y: 0), format: .jpeg)   // the full pass
        waitFor { s.statistics().passes.pyramidsCompleted == 1 }
        let stats = s.statistics().passes
        XCTAssertEqual(stats.started["1/8"], 1)
        XCTAssertEqual(stats.started["full"], 1)
        XCTAssertEqual(stats.repeated, 0)

        try PyramidBuilder(source: snapshot.source, options: BuildOptions()).build(into: dir + "/built", name: "large")
        let folder = dir + "/store/" + TileStore.folder(image: "large", version: snapshot.version, options: s.options)
        for level in 0 ... geometry.maxLevel {
            let (columns, rows) = geometry.tileCount(level)
            for y in 0 ..< rows { for x in 0 ..< columns {
                let stored = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(level)/\(x)_\(y).jpg"))
                if level >= geometry.maxLevel - 2 {
                    let built = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/built/large_files/\(level)/\(x)_\(y).jpg"))
                    XCTAssertEqual(stored, built, "tile \(level)/\(x)_\(y)")
                } else {
                    let rect = try geometry.rect(of: TileCoordinate(level: level, x: x, y: y))
                    let pixels = try ImageDecoder.decode([UInt8](stored))
                    XCTAssertEqual([pixels.width, pixels.height], [rect.width, rect.height])
                }
            } }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/pass-1.done"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/pass-8.done"))

        let again = try service(large, store: dir + "/store")
        for tile in [TileCoordinate(level: 12, x: 15, y: 10), TileCoordinate(level: 3, x: 0, y: 0), TileCoordinate(level: 11, x: 4, y: 2)] {
            XCTAssertEqual(try again.tile(image: "large", tile: tile, format: .jpeg).origin, .disk)
        }
        XCTAssertEqual(again.statistics().passes.started, [:], "nothing decoded after a restart")
    }

    /// A tile far below the full pass comes from a region pass (16 × 8 tiles of its level), at once; its
    /// neighbours in the block are stored by it.
    func testATileFarAheadOfTheFullPassComesFromARegionPass() throws {
        let dir = temporaryDirectory()
        let s = try service(large, store: dir)
        let tile = TileCoordinate(level: 12, x: 14, y: 9)
        let answer = try s.tile(image: "large", tile: tile, format: .png)
        let image = try XCTUnwrap(s.image("large"))
        let snapshot = try image.current()
        // The region's decode skips the rows above it and crops: libjpeg upsamples chroma at the crop's edges
        // from what it has, so a pixel may differ from the single tile's decode by a step or two.
        XCTAssertLessThanOrEqual(PixelCompare.maxDifference(try ImageDecoder.decode(answer.tile.bytes), try image.render(tile, in: snapshot)), 3)
        XCTAssertEqual(s.statistics().passes.started["region"], 1)
        let neighbour = TileStore.name(folder: TileStore.folder(image: "large", version: snapshot.version, options: s.options),
                                       tile: TileCoordinate(level: 12, x: 13, y: 8), format: .jpeg)
        waitFor { FileManager.default.fileExists(atPath: dir + "/" + neighbour) }
    }

    /// Once the 1/8 pass has indexed a large JPEG to its foot, a tile far below the full pass is decoded on its own
    /// from an extract at its level's shrink (no region pass, no wait): the same pixels as a render of that tile.
    func testATileOfAnIndexedJPEGIsDecodedOnItsOwn() throws {
        let copy = temporaryDirectory() + "/large.jpg"
        try FileManager.default.copyItem(atPath: large, toPath: copy)
        let s = try service(copy, store: temporaryDirectory(), limits: ImageLimits(entryIndexPixels: 0))
        let scanned = s.statistics().passes.jpegEighthsScanned
        _ = try s.tile(image: "large", tile: TileCoordinate(level: 5, x: 0, y: 0), format: .jpeg)
        waitFor { s.statistics().passes.completed["1/8"] == 1 }
        XCTAssertEqual(s.statistics().passes.jpegEighthsScanned, scanned + 1, "the 1/8 pass came from the scan")
        let image = try XCTUnwrap(s.image("large"))
        let snapshot = try image.current()
        XCTAssertTrue(snapshot.source.regionsAreCheap)
        let tile = TileCoordinate(level: 11, x: 7, y: 4)
        let answer = try s.tile(image: "large", tile: tile, format: .png)
        XCTAssert(try ImageDecoder.decode(answer.tile.bytes) == image.render(tile, in: snapshot, scaled: true))
        let stats = s.statistics().passes
        XCTAssertEqual(stats.directDecodes, 1)
        XCTAssertNil(stats.started["region"])
    }

    /// With the store off, what passes cut lives in the memory cache.
    func testWithoutAStorePassesFillTheMemoryCache() throws {
        let s = try service(large, store: nil)
        _ = try s.tile(image: "large", tile: TileCoordinate(level: 4, x: 0, y: 0), format: .jpeg)
        waitFor { s.statistics().passes.completed["1/8"] == 1 }
        XCTAssertEqual(try s.tile(image: "large", tile: TileCoordinate(level: 9, x: 1, y: 1), format: .jpeg).origin, .memory)
    }

    /// Passes nobody waits for go after those a request waits for; small passes before full ones.
    func testTheQueueRunsWhatViewersWaitForFirst() throws {
        let options = TileOptions(rasterDirectory: NSTemporaryDirectory())
        let snapshot = try PyramidImage(id: "x", path: large, options: options).current()
        let full = PyramidPass(plan: PassPlan(shrink: 1, levels: 10 ... 12), snapshot: snapshot, encoders: 1)
        let small = PyramidPass(plan: PassPlan(shrink: 8, levels: 0 ... 9), snapshot: snapshot, encoders: 1)
        XCTAssertTrue(PassScheduler.precedes(small, full))
        XCTAssertFalse(PassScheduler.precedes(full, small))
        let waiter = Thread { _ = try? full.pixels(of: TileCoordinate(level: 12, x: 0, y: 0)) }
        waiter.start()
        waitFor { full.demand == 1 }
        XCTAssertTrue(PassScheduler.precedes(full, small), "a pass a request waits for goes first")
        full.cancel()
        waitFor { full.demand == 0 }
    }

    /// With two slots, one takes the longest pass queued within the burst of a viewer's requests, whatever order
    /// they reached the server in; the other slot takes them first come first served, at once.
    func testOneSlotTakesTheLongestPass() throws {
        let options = TileOptions(rasterDirectory: NSTemporaryDirectory())
        let snapshot = try PyramidImage(id: "x", path: large, options: options).current()
        let plan = PassPlan(shrink: 1, levels: 10 ... 12)
        func pass(_ side: Int) -> PyramidPass {
            PyramidPass(plan: plan, window: PassWindow(columns: 0 ..< side, rows: 0 ..< side), snapshot: snapshot, encoders: 1)
        }
        let first = pass(1), small = pass(2), long = pass(8)
        XCTAssertTrue(PassScheduler.precedes(long, small, longestFirst: true))
        XCTAssertTrue(PassScheduler.precedes(small, long))
        let scheduler = PassScheduler(slots: 2)
        let gate = ConditionLock()
        let state = Locked((order: [Int](), open: false))
        for (n, p) in [first, small, long].enumerated() {
            scheduler.submit(p) {
                state.withLock { $0.order.append(n) }
                gate.withLock { while !state.withLock({ $0.open }) { gate.wait() } }
            }
        }
        waitFor { state.withLock { $0.order.count } == 2 }
        XCTAssertEqual(state.withLock { $0.order }, [0, 2], "the second slot took the longer pass queued after it")
        gate.withLock {
            state.withLock { $0.open = true }
            gate.broadcast()
        }
        waitFor { state.withLock { $0.order.count } == 3 }
    }

    /// A pass runs at the priority of the requests waiting on it (a thumbnail's 1/8 pass must not yield to the
    /// regions other requests decode meanwhile), and at background priority from the first band nobody waits.
    func testAPassHasItsWaitersPriorityUntilNobodyWaits() throws {
        let options = TileOptions(rasterDirectory: NSTemporaryDirectory())
        let snapshot = try PyramidImage(id: "x", path: large, options: options).current()
        let rows = snapshot.geometry.tileCount(12).rows
        XCTAssertGreaterThan(rows, 4)
        @Sendable func priority(_ tid: Int32) -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid)) }
        let base = priority(0)
        try XCTSkipIf(base >= 19, "the tests run at the lowest priority already")

        /// Runs `pass` on a thread of its own (at the tests' priority); the thread's id, and its priority once the
        /// pass is done.
        func run(_ pass: PyramidPass) -> (tid: Locked<Int32>, after: Locked<Int32?>) {
            let tid = Locked<Int32>(0), after = Locked<Int32?>(nil)
            Thread {
                // "PID/task/TID": the kernel's id of this thread.
                let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last
                tid.withLock { $0 = me.flatMap { Int32($0) } ?? -1 }
                pass.run(background: true) { _ in }
                after.withLock { $0 = priority(0) }
            }.start()
            return (tid, after)
        }

        let alone = PyramidPass(plan: PassPlan(shrink: 1, levels: 10 ... 12), snapshot: snapshot, encoders: 1)
        let quiet = run(alone)
        waitFor { quiet.after.withLock { $0 } != nil }
        XCTAssertEqual(quiet.after.withLock { $0 }, 19, "a pass nobody waits for runs in the background")

        let waited = PyramidPass(plan: PassPlan(shrink: 1, levels: 10 ... 12), snapshot: snapshot, encoders: 1)
        let got = Locked(false)
        Thread {
            _ = try? waited.pixels(of: TileCoordinate(level: 12, x: 0, y: rows - 3))
            got.withLock { $0 = true }
        }.start()
        waitFor { waited.demand == 1 }
        let busy = run(waited)
        var samples = 0
        while !got.withLock({ $0 }) {
            let tid = busy.tid.withLock { $0 }
            XCTAssertNotEqual(tid, -1)
            if tid > 0, waited.demand == 1 {
                let seen = priority(tid)
                if waited.demand == 1 {
                    XCTAssertEqual(seen, base, "lowered while a request waits")
                    samples += 1
                }
            }
            usleep(500)
        }
        waitFor { busy.after.withLock { $0 } != nil }
        XCTAssertGreaterThan(samples, 0)
        XCTAssertEqual(busy.after.withLock { $0 }, 19, "the rows after the last waiter's tile run in the background")
    }

    /// A master replaced while its pass runs: the pass stops, the old version's stored tiles go, and every
    /// tile served afterwards is cut from the new file.
    func testAMasterReplacedMidPassNeverShowsOldTilesUnderTheNewVersion() throws {
        let dir = temporaryDirectory()
        let path = dir + "/photo.jpg"
        try FileManager.default.copyItem(atPath: large, toPath: path)
        let options = TileOptions(rasterDirectory: NSTemporaryDirectory(), changeCheckInterval: 0)
        let s = TileService(images: [try PyramidImage(id: "photo", path: path, options: options)], options: options,
                            store: try TileStore(directory: dir + "/store", budget: 1 << 30))
        let image = try XCTUnwrap(s.image("photo"))
        let old = try image.current()
        _ = try s.tile(image: "photo", tile: TileCoordinate(level: 12, x: 0, y: 0), format: .jpeg)
        let oldFolder = dir + "/store/" + TileStore.folder(image: "photo", version: old.version, options: options)
        waitFor { FileManager.default.fileExists(atPath: oldFolder + "/pass-1.started") }

        let checked = [TileCoordinate(level: 12, x: 0, y: 0), TileCoordinate(level: 12, x: 15, y: 10), TileCoordinate(level: 6, x: 0, y: 0)]
        let oldPixels = try checked.map { try image.render($0, in: old) }
        let flipped = try old.source.decodeAll().rotated(quarterTurns: 2)
        try Data(try ImageEncoder.jpeg(flipped, quality: 90)).write(to: URL(fileURLWithPath: dir + "/next.jpg"))
        XCTAssertEqual(rename(dir + "/next.jpg", path), 0)
        let new = try image.current()
        XCTAssertNotEqual(new.version, old.version)
        waitFor { !FileManager.default.fileExists(atPath: oldFolder) }
        for (tile, oldTile) in zip(checked, oldPixels) {
            let answer = try s.tile(image: "photo", tile: tile, format: .png)
            XCTAssertEqual(answer.tile.version, new.version)
            let served = try ImageDecoder.decode(answer.tile.bytes)
            XCTAssertLessThan(PixelCompare.meanAbsoluteDifference(served, try image.render(tile, in: new)), 1, "\(tile) is cut from the new file")
            XCTAssertGreaterThan(PixelCompare.meanAbsoluteDifference(served, oldTile), 10, "\(tile) is not the old one")
        }
        // The old pass may still be stopping; nothing it cuts may land under either version.
        waitFor { s.statistics().passes.running == 0 }
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFolder + "/pass-1.done"))
    }
}
