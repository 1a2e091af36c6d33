import Foundation
import POSIXSupport
import XCTest
@testable import ImageCodecs
import ImageTestSupport
import TestSupport

/// A master's structure kept beside the tiles: a second process (new `ImageFiles`, same keeper) opens a pyramidal
/// TIFF reading nothing of it; a replaced object (new ETag) is opened from its own bytes; what the keeper hands back
/// is taken only when whole and of the version asked for.
final class ObjectStructuresTests: XCTestCase {
    private final class MemoryKeeper: EntryIndexKeeper, @unchecked Sendable {
        let kept = Locked<[String: [UInt8]]>([:])
        /// The names asked for, in order.
        let loads = Locked<[String]>([])
        func load(_ name: String) -> [UInt8]? {
            loads.withLock { $0.append(name) }
            return kept.withLock { $0[name] }
        }
        func save(_ name: String, _ bytes: [UInt8]) { kept.withLock { $0[name] = bytes } }
    }

    private func waitForKept(_ keeper: MemoryKeeper, count: Int) {
        let deadline = Date().addingTimeInterval(10)
        while keeper.kept.withLock({ $0.count }) < count, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(keeper.kept.withLock { $0.count }, count)
    }

    /// The fixture's pyramidal TIFF in a store in memory, opened by a first process that keeps its structures.
    private func openedFirst() throws -> (MemoryObjects, MemoryKeeper, ImageFiles, TIFFSource) {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("pyramid-bigtiff.tif"))))
        let objects = MemoryObjects(), keeper = MemoryKeeper()
        objects.put("s3://masters/p.tif", bytes, tag: "\"one\"")
        ImageInput.configureObjectCache(budget: 64 << 20)
        let first = ImageFiles(objects: objects)
        first.structures!.keep(in: keeper)
        return (objects, keeper, first, try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: first) as? TIFFSource))
    }

    /// A server starts the structures' listing beside its listing of the masters, and its tile service asks again
    /// for the same store: one listing, not a second in the way of the first requests. Another keeper is listed.
    func testKeepingInTheSameKeeperAgainListsItOnce() {
        final class ListingKeeper: EntryIndexKeeper, @unchecked Sendable {
            let listings = Locked(0)
            func load(_ name: String) -> [UInt8]? { nil }
            func save(_ name: String, _ bytes: [UInt8]) {}
            func names(under folder: String) -> Set<String>? {
                listings.withLock { $0 += 1 }
                return []
            }
        }
        let structures = ImageFiles(objects: MemoryObjects()).structures!
        let keeper = ListingKeeper(), other = ListingKeeper()
        structures.keep(in: keeper)
        structures.keep(in: keeper)
        XCTAssertFalse(structures.mayHold("object-structures/absent.tsos"))     // waits for the listing
        usleep(100_000)
        XCTAssertEqual(keeper.listings.withLock { $0 }, 1)
        structures.keep(in: other)
        XCTAssertFalse(structures.mayHold("object-structures/absent.tsos"))
        XCTAssertEqual(other.listings.withLock { $0 }, 1)
        XCTAssertEqual(keeper.listings.withLock { $0 }, 1)
    }

    func testASecondProcessOpensAPyramidalTIFFFromItsKeptStructure() throws {
        let (objects, keeper, _, cold) = try openedFirst()
        XCTAssertFalse(objects.reads.isEmpty)
        waitForKept(keeper, count: 1)

        // Another process: its block cache empty, its structures new, the keeper the same.
        ImageInput.configureObjectCache(budget: 64 << 20)
        let before = objects.reads.count
        let second = ImageFiles(objects: objects)
        second.structures!.keep(in: keeper)
        let warm = try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: second) as? TIFFSource)
        XCTAssertEqual(objects.reads.count, before, "opening read the master again: \(objects.reads.dropFirst(before))")
        XCTAssertEqual(warm.levels, cold.levels)
        XCTAssertEqual(warm.info.width, cold.info.width)
        // A tile's place comes from the kept tile tables: the only read is the tile's own block.
        let level = warm.levels[0]
        _ = try warm.storedJPEG(PixelRect(x: 0, y: 0, width: level.tileWidth, height: level.chunkHeight), shrink: 1)
        XCTAssertLessThanOrEqual(objects.reads.count - before, 1)
    }

    /// Waits until no read has been made for 200 ms (the prefetches an open started are done).
    private func settled(_ objects: MemoryObjects) -> Int {
        var count = -1
        while count != objects.reads.count {
            count = objects.reads.count
            usleep(200_000)
        }
        return count
    }

    func testAProcessOpeningAMasterHasTheTilesTheOneBeforeReadWithoutAskingTheMaster() throws {
        let (objects, keeper, first, cold) = try openedFirst()
        let level = cold.levels[0]
        let tile = PixelRect(x: level.width / 2 / level.tileWidth * level.tileWidth, y: level.height / 2 / level.chunkHeight * level.chunkHeight,
                             width: level.tileWidth, height: level.chunkHeight)
        let expected = try cold.decode(tile, shrink: 1)
        waitForKept(keeper, count: 1)
        let structureOnly = keeper.kept.withLock { $0 }
        first.structures!.keepReads()
        let readsName = try XCTUnwrap(keeper.kept.withLock { $0.keys.first { $0.hasSuffix(".reads") } }, "what was read was not kept")
        let version = try objects.version(of: "s3://masters/p.tif")
        let list = try XCTUnwrap(ObjectStructures.decode(keeper.kept.withLock { $0[readsName]! }, version: version))
        XCTAssertFalse(list.pieces.contains { $0.bytes.isEmpty }, "the tile's bytes were in the block cache and are kept")

        // A process starting on the same store takes them in one bundle, beside the listing, before the master is
        // opened: the master opens and the tile is read with no further request to the keeper or to the master.
        let smallest = cold.levels.last!
        let opening = PixelRect(x: 0, y: 0, width: min(smallest.width, smallest.tileWidth), height: min(smallest.height, smallest.chunkHeight))
        ImageInput.configureObjectCache(budget: 64 << 20)
        let before = objects.reads.count
        keeper.loads.withLock { $0 = [] }
        let restarted = ImageFiles(objects: objects)
        restarted.structures!.keep(in: keeper)
        let taken = try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: restarted) as? TIFFSource)
        XCTAssertEqual(try taken.decode(tile, shrink: 1), expected)
        XCTAssertEqual(objects.reads.count, before, "the master was read: \(objects.reads.dropFirst(before))")
        XCTAssertEqual(keeper.loads.withLock { $0 }, [ObjectStructures.bundleName])

        // Without the bundle (another store's replica), the structure and what was read come in one round trip:
        // still no request to the master.
        keeper.kept.withLock { _ = $0.removeValue(forKey: ObjectStructures.bundleName) }
        ImageInput.configureObjectCache(budget: 64 << 20)
        let second = ImageFiles(objects: objects)
        second.structures!.keep(in: keeper)
        let warm = try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: second) as? TIFFSource)
        XCTAssertEqual(try warm.decode(tile, shrink: 1), expected)
        XCTAssertEqual(objects.reads.count, before, "the master was read: \(objects.reads.dropFirst(before))")

        // Where the first process no longer held the bytes, it keeps the blocks' places: the next process fetches
        // them as it opens the master, before the tile is asked for.
        ImageInput.configureObjectCache(budget: 64 << 20)
        keeper.kept.withLock { $0 = structureOnly }
        first.structures!.keepReads()
        keeper.kept.withLock { _ = $0.removeValue(forKey: ObjectStructures.bundleName) }
        let places = try XCTUnwrap(ObjectStructures.decode(keeper.kept.withLock { $0[readsName]! }, version: version))
        XCTAssertFalse(places.pieces.isEmpty)
        XCTAssertTrue(places.pieces.allSatisfy { $0.bytes.isEmpty })
        /// A process on `keeper` opening the master and reading its smallest level, then the tile: the reads before
        /// the tile (once the open's fetches are done) and after it.
        func tileReads(_ keeper: MemoryKeeper) throws -> (before: Int, after: Int) {
            let files = ImageFiles(objects: objects)
            files.structures!.keep(in: keeper)
            let source = try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: files) as? TIFFSource)
            _ = try source.decode(opening, shrink: cold.levels[0].width / smallest.width)
            let before = settled(objects)
            XCTAssertEqual(try source.decode(tile, shrink: 1), expected)
            return (before, objects.reads.count)
        }
        let prefetched = try tileReads(keeper)
        XCTAssertEqual(prefetched.after, prefetched.before, "the tile's block was read when asked for: \(objects.reads.dropFirst(prefetched.before))")

        // One that finds only the structure reads the tile's block when asked for it.
        ImageInput.configureObjectCache(budget: 64 << 20)
        let other = MemoryKeeper()
        other.kept.withLock { $0 = structureOnly }
        let plain = try tileReads(other)
        XCTAssertGreaterThan(plain.after, plain.before)
    }

    /// What is noted of the reads stays bounded however many masters a long run reads: per version and in all.
    func testTheReadsNotedAreBounded() {
        let structures = ObjectStructures()
        structures.keep(in: MemoryKeeper())
        for v in 0 ..< 70 {
            let version = ObjectVersion(size: 1 << 30, tag: "\"\(v)\"", stamp: FileStamp(size: 1 << 30, modified: 0))
            structures.noteRead("s3://m/\(v).tif", version, (0 ..< 5000).map { (offset: Int64($0) * 4096, count: 4096) })
        }
        let counts = structures.reads.withLock { $0.values.map(\.ranges.count) }
        XCTAssertTrue(counts.allSatisfy { $0 <= ObjectStructures.readsLimit })
        XCTAssertEqual(counts.reduce(0, +), ObjectStructures.readsTotalLimit)
    }

    func testAReplacedObjectIsNeverReadThroughItsOldStructure() throws {
        let old = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("pyramid-bigtiff.tif"))))
        let new = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("pyramid-jpeg.tif"))))
        let objects = MemoryObjects(), keeper = MemoryKeeper()
        objects.put("s3://masters/p.tif", old, tag: "\"one\"")
        let files = ImageFiles(objects: objects)
        files.structures!.keep(in: keeper)
        let before = try ImageOpener.open("s3://masters/p.tif", files: files)
        waitForKept(keeper, count: 1)
        objects.put("s3://masters/p.tif", new, tag: "\"two\"")
        let after = try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: files) as? TIFFSource)
        let local = try XCTUnwrap(try ImageOpener.open(Fixtures.path("pyramid-jpeg.tif")) as? TIFFSource)
        XCTAssertNotEqual((before as? TIFFSource)?.levels, after.levels, "the fixtures differ in their levels")
        XCTAssertEqual(after.levels, local.levels)
        waitForKept(keeper, count: 2)
    }

    func testAKeptStructureIsTakenOnlyWholeAndOfItsVersion() {
        let version = ObjectVersion(size: 1000, tag: "\"a\"", stamp: FileStamp(size: 1000, modified: 0))
        let structure = ObjectStructures.Structure(size: 1000, pieces: [(0, Array(repeating: 7, count: 16)), (500, [1, 2, 3, 4])])
        let bytes = ObjectStructures.encode(structure, tag: "\"a\"")
        let back = ObjectStructures.decode(bytes, version: version)
        XCTAssertNotNil(back)
        var out = [UInt8](repeating: 0, count: 4)
        XCTAssertTrue(back!.copy(into: &out, count: 3, at: 501))
        XCTAssertEqual(out.prefix(3), [2, 3, 4])
        XCTAssertFalse(back!.copy(into: &out, count: 4, at: 502), "past the piece's end")
        XCTAssertFalse(back!.copy(into: &out, count: 1, at: 100), "between pieces")
        let other = ObjectVersion(size: 1000, tag: "\"b\"", stamp: version.stamp)
        XCTAssertNil(ObjectStructures.decode(bytes, version: other), "another ETag")
        XCTAssertNil(ObjectStructures.decode(bytes, version: ObjectVersion(size: 999, tag: "\"a\"", stamp: version.stamp)), "another size")
        for cut in [0, 5, 20, bytes.count - 1] {
            XCTAssertNil(ObjectStructures.decode(Array(bytes.prefix(cut)), version: version), "cut at \(cut)")
        }
        XCTAssertNil(ObjectStructures.decode(bytes + [0], version: version), "trailing bytes")
        var overlapping = bytes
        overlapping[overlapping.count - 4 - 16] = 5   // the second piece's offset moved before the first's end
        overlapping[overlapping.count - 4 - 15] = 0
        XCTAssertNil(ObjectStructures.decode(overlapping, version: version), "pieces out of order")
        var huge = bytes
        let at = huge.count - 4 - 16
        for i in 0 ..< 8 { huge[at + i] = 0xFF }     // an offset past the object's end
        XCTAssertNil(ObjectStructures.decode(huge, version: version))

        // Pieces added (a process before's reads) are joined where they overlap or touch; empty ones are dropped.
        let added = structure.adding([(14, [7, 7, 9, 9]), (504, [5, 6]), (700, []), (10, [7])])
        XCTAssertEqual(added.pieces.map(\.offset), [0, 500])
        XCTAssertEqual(added.pieces.map(\.bytes), [Array(repeating: 7, count: 16) + [9, 9], [1, 2, 3, 4, 5, 6]])
        XCTAssertTrue(added.holds(count: 6, at: 500))
        XCTAssertFalse(added.holds(count: 1, at: 700))
    }

    /// The fuzz target's structure seeds and findings (Fuzz/Corpus/s3, Fuzz/Regressions/s3, first byte 0xFF).
    func testFuzzInputsDecodeOrAreRefused() throws {
        let version = ObjectVersion(size: 1 << 20, tag: "\"etag\"", stamp: FileStamp(size: 1 << 20, modified: 0))
        let seeds = try FuzzInputs.contents(of: "s3").filter { $0.1.first == 0xFF }
        XCTAssertFalse(seeds.isEmpty)
        for (name, data) in seeds {
            let rest = Array(data.dropFirst())
            if let structure = ObjectStructures.decode(rest, version: version) {
                XCTAssertEqual(ObjectStructures.encode(structure, tag: version.tag), rest, name)
            }
        }
        XCTAssertNotNil(ObjectStructures.decode(Array(try XCTUnwrap(seeds.first { $0.0.hasSuffix("structure") }).1.dropFirst()), version: version))
        let bundles = try FuzzInputs.contents(of: "s3").filter { $0.1.first == 0xFE }
        XCTAssertFalse(bundles.isEmpty)
        for (name, data) in bundles {
            if let entries = ObjectStructures.decodeBundle(Array(data.dropFirst())) {
                let again = entries.map { (path: $0.path, structure: ObjectStructures.encode($0.structure, tag: $0.tag)) }
                XCTAssertEqual(ObjectStructures.encodeBundle(again), Array(data.dropFirst()), name)
            }
        }
        let seed = Array(try XCTUnwrap(bundles.first { $0.0.hasSuffix("bundle") }).1.dropFirst())
        XCTAssertEqual(ObjectStructures.decodeBundle(seed)?.map(\.path), ["s3://masters/a.tif"])
        // Hostile bundles: cut anywhere, a count or a length past the end, a damaged structure inside.
        for cut in [0, 6, 14, 30, seed.count - 1] {
            XCTAssertNil(ObjectStructures.decodeBundle(Array(seed.prefix(cut))), "cut at \(cut)")
        }
        var counted = seed
        counted[6] = 0xFF
        XCTAssertNil(ObjectStructures.decodeBundle(counted))
        var long = seed
        for i in 14 ..< 22 { long[i] = 0xFF }
        XCTAssertNil(ObjectStructures.decodeBundle(long))
        var damaged = seed
        damaged[48] ^= 0xFF    // the structure's own magic
        XCTAssertNil(ObjectStructures.decodeBundle(damaged))
    }

    /// Reads ahead of the viewer only for a store far away: its quick GETs, not its slow ones, say how far it is.
    func testReadsAheadAreMadeOnlyForAStoreFarAway() {
        let near = ObjectPrefetch(threads: 1)
        let runs: [(Int64, Int64)] = [(0, 1), (4, 2)]
        XCTAssertTrue(near.admit(runs, blockBytes: 1 << 18, budget: 64 << 20, ahead: true).isEmpty, "before any GET")
        XCTAssertEqual(near.admit(runs, blockBytes: 1 << 18, budget: 64 << 20, ahead: false).count, 2, "a master's directories always")
        // A store on the same machine with a cold disk: most GETs slow, some quick.
        for i in 0 ..< 32 { near.observe(seconds: i % 4 == 0 ? 0.002 : 0.030) }
        XCTAssertTrue(near.admit(runs, blockBytes: 1 << 18, budget: 64 << 20, ahead: true).isEmpty)
        // Decided from the fourth GET (an open's head and directories, a start's listing): not from three.
        let far = ObjectPrefetch(threads: 1)
        for i in 0 ..< 3 { far.observe(seconds: 0.015 + Double(i) * 0.001) }
        XCTAssertTrue(far.admit(runs, blockBytes: 1 << 18, budget: 64 << 20, ahead: true).isEmpty)
        far.observe(seconds: 0.020)
        XCTAssertEqual(far.admit(runs, blockBytes: 1 << 18, budget: 64 << 20, ahead: true).count, 2)
        // A store near by, busy while the first masters open: one quick GET of the first four says near.
        let busy = ObjectPrefetch(threads: 1)
        for seconds in [0.003, 0.030, 0.025, 0.040] { busy.observe(seconds: seconds) }
        XCTAssertTrue(busy.admit(runs, blockBytes: 1 << 18, budget: 64 << 20, ahead: true).isEmpty)
        // At most a quarter of the cache on its way: the three blocks above (768 KiB) are, and a 2 MiB cache takes no more.
        XCTAssertEqual(far.admit(runs, blockBytes: 1 << 18, budget: 2 << 20, ahead: true).count, 0)
    }
}
