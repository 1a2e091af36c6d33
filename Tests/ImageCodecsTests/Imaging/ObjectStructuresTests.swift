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
        func load(_ name: String) -> [UInt8]? { kept.withLock { $0[name] } }
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

    func testAProcessOpeningAMasterFetchesTheBlocksTheOneBeforeReadAtOnce() throws {
        let (objects, keeper, first, cold) = try openedFirst()
        let level = cold.levels[0]
        let tile = PixelRect(x: level.width / 2 / level.tileWidth * level.tileWidth, y: level.height / 2 / level.chunkHeight * level.chunkHeight,
                             width: level.tileWidth, height: level.chunkHeight)
        let expected = try cold.decode(tile, shrink: 1)
        waitForKept(keeper, count: 1)
        let structureOnly = keeper.kept.withLock { $0 }
        first.structures!.keepReads()
        XCTAssertEqual(keeper.kept.withLock { $0.keys.filter { $0.hasSuffix(".reads") }.count }, 1, "the blocks read were not kept")

        // A process that finds the blocks read kept: the tile's block comes with the first tile asked for (one of
        // the smallest level), before the tile itself is.
        let smallest = cold.levels.last!
        let opening = PixelRect(x: 0, y: 0, width: min(smallest.width, smallest.tileWidth), height: min(smallest.height, smallest.chunkHeight))
        ImageInput.configureObjectCache(budget: 64 << 20)
        let second = ImageFiles(objects: objects)
        second.structures!.keep(in: keeper)
        let warm = try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: second) as? TIFFSource)
        _ = try warm.decode(opening, shrink: cold.levels[0].width / smallest.width)
        var before = settled(objects)
        XCTAssertEqual(try warm.decode(tile, shrink: 1), expected)
        XCTAssertEqual(objects.reads.count, before, "the tile's block was read when asked for: \(objects.reads.dropFirst(before))")

        // One that finds only the structure reads the tile's block when asked for it.
        ImageInput.configureObjectCache(budget: 64 << 20)
        let other = MemoryKeeper()
        other.kept.withLock { $0 = structureOnly }
        let third = ImageFiles(objects: objects)
        third.structures!.keep(in: other)
        let plain = try XCTUnwrap(try ImageOpener.open("s3://masters/p.tif", files: third) as? TIFFSource)
        _ = try plain.decode(opening, shrink: cold.levels[0].width / smallest.width)
        before = settled(objects)
        XCTAssertEqual(try plain.decode(tile, shrink: 1), expected)
        XCTAssertGreaterThan(objects.reads.count, before)
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
        let far = ObjectPrefetch(threads: 1)
        for i in 0 ..< 8 { far.observe(seconds: 0.015 + Double(i) * 0.001) }
        XCTAssertEqual(far.admit(runs, blockBytes: 1 << 18, budget: 64 << 20, ahead: true).count, 2)
        // At most a quarter of the cache on its way: the three blocks above (768 KiB) are, and a 2 MiB cache takes no more.
        XCTAssertEqual(far.admit(runs, blockBytes: 1 << 18, budget: 2 << 20, ahead: true).count, 0)
    }
}
