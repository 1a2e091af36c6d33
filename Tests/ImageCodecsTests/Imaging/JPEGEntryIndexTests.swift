import Foundation
import XCTest
import POSIXSupport
@testable import ImageCodecs
import ImageTestSupport

/// The entry index as regions use it: shared by threads while it is still scanning, and never used for another
/// version of the file.
final class JPEGEntryIndexTests: XCTestCase {
    private let indexEverything = ImageLimits(entryIndexPixels: 0)

    /// Eight threads decode different regions of one fresh file at once (so extracts run while the scan goes
    /// on down); every region equals the whole decode's crop.
    func testRegionsFromManyThreadsWhileTheScanGoesOn() throws {
        let path = try Fixtures.temporary(try Fixtures.bytes("restart-422.jpg"), name: "threads.jpg")
        let whole = try ImageOpener.open(path).decodeAll()
        let source = try ImageOpener.open(path, limits: indexEverything)
        let before = indexEverything.indexes.statistics().extracts
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for k in 0 ..< 4 {
                let rect = PixelRect(x: 37 * (i + k) % 500, y: 390 - 50 * i, width: 150, height: 40 + 5 * k)
                do {
                    let region = try source.decode(rect)
                    if region != whole.cropped(to: rect) { failures.withLock { $0.append("\(rect) differs") } }
                } catch {
                    failures.withLock { $0.append("\(rect): \(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(indexEverything.indexes.statistics().extracts - before, 32)
    }

    /// A file rewritten in place (same size in pixels, other sampling and quality) gets an index of its own: regions show the
    /// new pixels, never the old file's entries applied to the new data.
    func testARewrittenFileIsIndexedAgain() throws {
        let path = try Fixtures.temporary(try Fixtures.bytes("baseline.jpg"), name: "rewritten.jpg")
        let rect = PixelRect(x: 300, y: 200, width: 200, height: 120)
        let first = try ImageOpener.open(path, limits: indexEverything)
        XCTAssert(try first.decode(rect) == ImageOpener.open(path).decodeAll().cropped(to: rect))
        let replacement = try Fixtures.bytes("q100-444.jpg")
        let temporary = path + ".new"
        try Data(replacement).write(to: URL(fileURLWithPath: temporary))
        var later = timespec(tv_sec: 0, tv_nsec: 0)
        clock_gettime(CLOCK_REALTIME, &later)
        later.tv_sec += 5 // another modification time even on a coarse clock
        var times = [later, later]
        XCTAssertEqual(utimensat(AT_FDCWD, temporary, &times, 0), 0)
        XCTAssertEqual(rename(temporary, path), 0)
        let second = try ImageOpener.open(path, limits: indexEverything)
        let expected = try ImageOpener.open(path).decodeAll().cropped(to: rect)
        XCTAssert(try second.decode(rect) == expected)
    }

    /// A keeper that holds bytes in memory, as the tile store would.
    private final class MemoryKeeper: EntryIndexKeeper, @unchecked Sendable {
        let kept = Locked([String: [UInt8]]())
        func load(_ name: String) -> [UInt8]? { kept.withLock { $0[name] } }
        func save(_ name: String, _ bytes: [UInt8]) { kept.withLock { $0[name] = bytes } }
    }

    /// A complete index is handed to the keeper; a fresh set of indexes (a restarted server) takes it instead of
    /// scanning, and its regions are the whole decode's. Bytes altered, cut short or of another file are refused
    /// (the file is then scanned as usual).
    func testACompleteIndexIsKeptAndTakenBackButNeverWhenAltered() throws {
        let path = try Fixtures.temporary(try Fixtures.bytes("restart-422.jpg"), name: "kept.jpg")
        let whole = try ImageOpener.open(path).decodeAll()
        let keeper = MemoryKeeper()
        let first = ImageLimits(entryIndexPixels: 0)
        first.indexes.keep(in: keeper)
        let source = try ImageOpener.open(path, limits: first)
        let rect = PixelRect(x: 40, y: source.info.height - 60, width: 200, height: 50)
        XCTAssert(try source.decode(rect) == whole.cropped(to: rect))
        XCTAssertEqual(first.indexes.statistics().indexesKept, 1)
        let (name, bytes) = try XCTUnwrap(keeper.kept.withLock { $0.first })

        let second = ImageLimits(entryIndexPixels: 0)
        second.indexes.keep(in: keeper)
        let again = try ImageOpener.open(path, limits: second)
        XCTAssertTrue((again as! JPEGSource).regionsAreCheap)
        XCTAssertEqual(second.indexes.statistics().indexesReused, 1)
        XCTAssert(try again.decode(rect) == whole.cropped(to: rect))

        for altered in [Array(bytes.dropLast(3)), bytes.enumerated().map { $0.offset == bytes.count / 2 ? $0.element ^ 4 : $0.element }, []] {
            keeper.kept.withLock { $0[name] = altered }
            let fresh = ImageLimits(entryIndexPixels: 0)
            fresh.indexes.keep(in: keeper)
            let opened = try ImageOpener.open(path, limits: fresh)
            XCTAssert(try opened.decode(rect) == whole.cropped(to: rect))
            XCTAssertEqual(fresh.indexes.statistics().indexesReused, 0)
        }
        // Entries of another JPEG under this file's name.
        let other = try Fixtures.temporary(try Fixtures.bytes("restart.jpg"), name: "other.jpg")
        let otherLimits = ImageLimits(entryIndexPixels: 0)
        let otherKeeper = MemoryKeeper()
        otherLimits.indexes.keep(in: otherKeeper)
        let otherSource = try ImageOpener.open(other, limits: otherLimits)
        _ = try otherSource.decode(PixelRect(x: 0, y: otherSource.info.height - 20, width: 50, height: 20))
        let foreign = try XCTUnwrap(otherKeeper.kept.withLock { $0.first?.value })
        keeper.kept.withLock { $0[name] = foreign }
        let fresh = ImageLimits(entryIndexPixels: 0)
        fresh.indexes.keep(in: keeper)
        XCTAssert(try ImageOpener.open(path, limits: fresh).decode(rect) == whole.cropped(to: rect))
        XCTAssertEqual(fresh.indexes.statistics().indexesReused, 0)
    }
}
