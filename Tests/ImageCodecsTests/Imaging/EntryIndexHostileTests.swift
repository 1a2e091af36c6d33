import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// Broken JPEGs through the entry index (`JPEGEntryIndex`): a typed error or pixels, quickly, never a crash; where
/// the index cannot go (a header it does not take, data that stops making sense), the decode falls back to
/// libjpeg's own skip and fails or succeeds as it would.
final class EntryIndexHostileTests: XCTestCase {
    private let indexEverything = ImageLimits(entryIndexPixels: 0)

    /// Decodes the lower-right quarter of `bytes` (a region the index enters) at `shrink`; the error, or nil.
    private func region(_ bytes: [UInt8], name: String, shrink: Int = 1, limits: ImageLimits? = nil,
                        file: StaticString = #filePath, line: UInt = #line) throws -> ImageSourceError? {
        let path = try Fixtures.temporary(bytes, name: name)
        let started = Date()
        defer { XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "\(name) took too long", file: file, line: line) }
        do {
            let source = try ImageOpener.open(path, limits: limits ?? indexEverything)
            let (w, h) = source.size(shrink: shrink)
            _ = try source.decode(PixelRect(x: w / 2, y: h / 2, width: w - w / 2, height: h - h / 2), shrink: shrink)
            return nil
        } catch let error as ImageSourceError {
            XCTAssertFalse(error.description.isEmpty, file: file, line: line)
            return error
        } catch {
            XCTFail("untyped error \(error) for \(name)", file: file, line: line)
            return nil
        }
    }

    private func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0 ... bytes.count - needle.count).first { Array(bytes[$0 ..< $0 + needle.count]) == needle }
    }

    /// Cut short anywhere after the header, the index stops where the data does and libjpeg reports the
    /// truncation, at the same byte as without the index.
    func testTruncatedFilesFailAsWithoutTheIndex() throws {
        for name in ["baseline.jpg", "restart-422.jpg", "optimized.jpg"] {
            let bytes = try Fixtures.bytes(name)
            for k in 1 ..< 8 {
                let cut = bytes.count * k / 8
                let through = try region(Array(bytes.prefix(cut)), name: "cut-\(k)-\(name)")
                let without = try region(Array(bytes.prefix(cut)), name: "cut-\(k)-plain-\(name)", limits: ImageLimits())
                XCTAssertEqual(through?.description, without?.description.replacingOccurrences(of: "-plain", with: ""),
                               "\(name) cut at \(cut)")
                // Either a truncation, or the image of the rows above the cut (`CutShort`), which no index enters.
                let cutShort = try? ImageOpener.open(Fixtures.temporary(Array(bytes.prefix(cut)), name: "cut-\(k)-\(name)"), limits: indexEverything).info.cutShort
                if cut < bytes.count * 3 / 4, through != nil {
                    guard case .truncated = through else { XCTFail("\(name) cut at \(cut): \(String(describing: through))"); continue }
                } else if through == nil, cut < bytes.count * 3 / 4 {
                    XCTAssertNotNil(cutShort, "\(name) cut at \(cut) decodes, so it is told cut short")
                }
            }
        }
    }

    func testRandomBitFlipsNeverCrash() throws {
        var rng = SplitMix(seed: 7)
        var outcomes = [0, 0]
        for name in ["baseline.jpg", "restart-422.jpg", "optimized.jpg", "gray.jpg"] {
            let original = try Fixtures.bytes(name)
            for round in 0 ..< 20 {
                var bytes = original
                for _ in 0 ... Int(rng.next() % 12) {
                    let at = 2 + Int(rng.next() % UInt64(bytes.count - 2))
                    bytes[at] ^= UInt8(1 << (rng.next() % 8))
                }
                let error = try region(bytes, name: "flip-\(round)-\(name)", shrink: [1, 2, 4][round % 3])
                outcomes[error == nil ? 0 : 1] += 1
            }
        }
        XCTAssertEqual(outcomes[0] + outcomes[1], 80)
    }

    /// Headers the index refuses (an impossible Huffman table, a scan naming a table never defined, restart
    /// markers out of order) are decoded by libjpeg alone: the same outcome as with no index.
    func testHeadersTheIndexRefusesFallBackToLibjpeg() throws {
        let baseline = try Fixtures.bytes("baseline.jpg")
        var badTable = baseline
        let dht = try XCTUnwrap(find([0xFF, 0xC4], in: badTable))
        badTable[dht + 5] = 0xFF // 255 codes of length 1
        var undefinedTable = baseline
        let sos = try XCTUnwrap(find([0xFF, 0xDA], in: undefinedTable))
        undefinedTable[sos + 6] = 0x33 // first component: DC and AC table 3
        var shuffledRestarts = try Fixtures.bytes("restart-422.jpg")
        let rst = try XCTUnwrap(find([0xFF, 0xD3], in: Array(shuffledRestarts[(shuffledRestarts.count / 2)...])))
        shuffledRestarts[shuffledRestarts.count / 2 + rst + 1] = 0xD6
        for (name, bytes) in [("bad-table.jpg", badTable), ("undefined-table.jpg", undefinedTable),
                              ("shuffled-restarts.jpg", shuffledRestarts)] {
            let before = indexEverything.indexes.statistics().extracts
            let through = try region(bytes, name: name)
            let without = try region(bytes, name: name, limits: ImageLimits())
            XCTAssertEqual(through?.description, without?.description, name)
            if name != "shuffled-restarts.jpg" {
                XCTAssertEqual(indexEverything.indexes.statistics().extracts, before, "\(name) went through the index")
            }
        }
    }
}
