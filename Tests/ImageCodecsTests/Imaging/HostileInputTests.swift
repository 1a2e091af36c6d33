import Foundation
import XCTest
@testable import ImageCodecs
import ImageTestSupport

/// Broken and hostile files give a typed error quickly, never a crash, a hang or a large allocation.
final class HostileInputTests: XCTestCase {
    /// Opens and fully decodes `path`; returns the error, which must be an `ImageSourceError`.
    @discardableResult
    private func attempt(_ path: String, limits: ImageLimits = ImageLimits(), file: StaticString = #filePath, line: UInt = #line) -> ImageSourceError? {
        let started = Date()
        defer {
            XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "\(path) took too long", file: file, line: line)
        }
        do {
            let source = try ImageOpener.open(path, limits: limits)
            _ = try source.decodeAll()
            return nil
        } catch let error as ImageSourceError {
            XCTAssertFalse(error.description.isEmpty, file: file, line: line)
            return error
        } catch {
            XCTFail("untyped error \(error) for \(path)", file: file, line: line)
            return nil
        }
    }

    private func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }

    func testTruncatedFilesAtTenOffsets() throws {
        let before = residentBytes()
        for name in ["baseline.jpg", "progressive.jpg", "rgb.png", "interlaced.png"] {
            let bytes = try Fixtures.bytes(name)
            for k in 0 ..< 10 {
                let cut = 10 + (bytes.count * 9 / 10 - 10) * k / 9
                let path = try Fixtures.temporary(Array(bytes.prefix(cut)), name: "cut-\(k)-\(name)")
                let error = attempt(path)
                // A baseline JPEG cut after its first rows is the image of those rows (`CutShort`), told so.
                if error == nil, name == "baseline.jpg" {
                    XCTAssertNotNil(try ImageOpener.open(path).info.cutShort, "\(name) cut at \(cut)")
                    continue
                }
                guard case let .truncated(_, _, atByte, fileSize, _, _) = error else {
                    XCTFail("\(name) cut at \(cut): expected a truncation error, got \(String(describing: error))")
                    continue
                }
                XCTAssertEqual(atByte, Int64(cut))
                XCTAssertEqual(fileSize, Int64(cut))
                XCTAssertTrue(error!.description.contains("truncated file"), error!.description)
            }
        }
        XCTAssertLessThan(residentBytes() - before, 64 << 20, "memory grew while decoding broken files")
    }

    func testRandomBitFlipsNeverCrash() throws {
        var rng = SplitMix(seed: 42)
        var errors = 0, decoded = 0
        for name in ["baseline.jpg", "progressive.jpg", "rgb.png", "palette.png"] {
            let original = try Fixtures.bytes(name)
            for round in 0 ..< 25 {
                var bytes = original
                for _ in 0 ... Int(rng.next() % 20) {
                    let at = 2 + Int(rng.next() % UInt64(bytes.count - 2))
                    bytes[at] ^= UInt8(1 << (rng.next() % 8))
                }
                let path = try Fixtures.temporary(bytes, name: "flip-\(round)-\(name)")
                if attempt(path) == nil { decoded += 1 } else { errors += 1 }
            }
        }
        XCTAssertGreaterThan(errors, 0, "bit flips should break at least some files")
        XCTAssertEqual(errors + decoded, 100)
    }

    func testEmptyAndTextFiles() throws {
        let empty = attempt(try Fixtures.temporary([], name: "empty.jpg"))
        XCTAssertEqual(empty?.description.contains("empty"), true, String(describing: empty))
        let text = attempt(try Fixtures.temporary(Array("hello, this is not a photo\n".utf8), name: "text.jpg"))
        guard case .unknownFormat = text else { return XCTFail(String(describing: text)) }
        let missing = attempt("/nonexistent/photo.jpg")
        guard case .cannotOpen = missing else { return XCTFail(String(describing: missing)) }
    }

    func testPNGWithBadCRC() throws {
        var bytes = try Fixtures.bytes("rgb.png")
        let idat = try XCTUnwrap(find(Array("IDAT".utf8), in: bytes))
        let length = Int(bytes[idat - 4]) << 24 | Int(bytes[idat - 3]) << 16 | Int(bytes[idat - 2]) << 8 | Int(bytes[idat - 1])
        bytes[idat + 4 + length] ^= 0xFF
        let error = attempt(try Fixtures.temporary(bytes, name: "bad-crc.png"))
        guard case let .corrupt(_, format, _, message) = error else { return XCTFail(String(describing: error)) }
        XCTAssertEqual(format, .png)
        XCTAssertTrue(message.contains("CRC"), message)
    }

    func testJPEGClaiming65500Square() throws {
        var bytes = try Fixtures.bytes("baseline.jpg")
        let sof = try XCTUnwrap(find([0xFF, 0xC0], in: bytes))
        bytes.replaceSubrange(sof + 5 ..< sof + 9, with: [0xFF, 0xDC, 0xFF, 0xDC])
        let error = attempt(try Fixtures.temporary(bytes, name: "huge.jpg"))
        guard case let .tooLarge(_, w, h, _, _) = error else { return XCTFail(String(describing: error)) }
        XCTAssertEqual(w, 65500)
        XCTAssertEqual(h, 65500)
        XCTAssertTrue(error!.description.contains("65,500 × 65,500"), error!.description)
    }

    func testPNGClaimingAMillionSquare() throws {
        var bytes = try Fixtures.bytes("rgb.png")
        let million: [UInt8] = [0x00, 0x0F, 0x42, 0x40]
        bytes.replaceSubrange(16 ..< 24, with: million + million)
        let crc = CRC32.checksum(bytes[12 ..< 29])
        bytes.replaceSubrange(29 ..< 33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        let before = residentBytes()
        let error = attempt(try Fixtures.temporary(bytes, name: "huge.png"))
        guard case let .tooLarge(_, w, h, limit, _) = error else { return XCTFail(String(describing: error)) }
        XCTAssertEqual(w, 1_000_000)
        XCTAssertEqual(h, 1_000_000)
        XCTAssertEqual(limit, ImageLimits.defaultMaxPixels)
        XCTAssertLessThan(residentBytes() - before, 8 << 20)
    }

    func testPixelLimitIsConfigurable() throws {
        let error = attempt(Fixtures.path("baseline.jpg"), limits: ImageLimits(maxPixels: 1000))
        guard case .tooLarge = error else { return XCTFail(String(describing: error)) }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0 ... haystack.count - needle.count where haystack[i ..< i + needle.count].elementsEqual(needle) { return i }
        return nil
    }
}

/// A small seeded generator so the bit flips are the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

