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
}
