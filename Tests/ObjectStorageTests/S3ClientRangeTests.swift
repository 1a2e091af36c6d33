import Foundation
@testable import ObjectStorage
import POSIXSupport
import XCTest

/// A ranged GET received straight into the caller's buffers (`S3Client.get(…into:…)`): the bytes land in order
/// across buffer boundaries however the store's packets split them, a store that ignores the range has the part
/// asked for moved to the front, and an answer longer than asked for is a failure, never bytes written past a
/// buffer.
final class S3ClientRangeTests: XCTestCase {
    /// An object of `size` bytes, each a function of its offset.
    private func object(_ size: Int) -> [UInt8] { (0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) } }

    func testARangeFillsBuffersInOrderAcrossTheirEdges() throws {
        let whole = object(900_000)
        let (offset, count) = (123_457, 600_000)
        let port = try serveOnce(status: "206 Partial Content", body: Array(whole[offset ..< offset + count]),
                                 extra: "Content-Range: bytes \(offset)-\(offset + count - 1)/\(whole.count)\r\n")
        let got = try fetch(port: port, offset: offset, sizes: [262_144, 262_144, 75_712])
        XCTAssertEqual(got, Array(whole[offset ..< offset + count]))
    }

    func testAShortAnswerAtTheObjectsEndFillsWhatCame() throws {
        let whole = object(300_000)
        let offset = 262_144
        let port = try serveOnce(status: "206 Partial Content", body: Array(whole[offset...]),
                                 extra: "Content-Range: bytes \(offset)-\(whole.count - 1)/\(whole.count)\r\n")
        let got = try fetch(port: port, offset: offset, sizes: [262_144, 262_144])
        XCTAssertEqual(got, Array(whole[offset...]))
    }

    func testAStoreThatIgnoresTheRangeGivesThePartAskedFor() throws {
        let whole = object(200_000)
        let offset = 50_000
        let port = try serveOnce(status: "200 OK", body: whole, extra: "")
        let got = try fetch(port: port, offset: offset, sizes: [131_072, 131_072])
        XCTAssertEqual(got, Array(whole[offset...]))
    }

    func testAnAnswerLongerThanAskedForFails() throws {
        let port = try serveOnce(status: "206 Partial Content", body: object(300_000), extra: "")
        XCTAssertThrowsError(try fetch(port: port, offset: 0, sizes: [262_144]))
    }

    /// The bytes `get(…into:…)` put in buffers of `sizes`, the ones that came.
    private func fetch(port: Int, offset: Int, sizes: [Int]) throws -> [UInt8] {
        let client = S3Client(configuration: S3Configuration(endpoint: "http://127.0.0.1:\(port)", region: "us-east-1",
                                                             addressing: .path, accessKey: "KEY", secretKey: "secret"))
        let buffers = sizes.map { UnsafeMutableRawBufferPointer.allocate(byteCount: $0, alignment: 16) }
        defer { buffers.forEach { $0.deallocate() } }
        for buffer in buffers { buffer.initializeMemory(as: UInt8.self, repeating: 0xEE) }
        let received = try client.get(bucket: "masters", key: "photo.tif", offset: Int64(offset), into: buffers, etag: "\"v1\"")
        var out: [UInt8] = []
        for buffer in buffers where out.count < received { out += buffer.prefix(received - out.count) }
        return out
    }

    /// A store that answers one request with `status` and `body`, written in pieces of 1,000 bytes; its port.
    private func serveOnce(status: String, body: [UInt8], extra: String) throws -> Int {
        let head = "HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nETag: \"v1\"\r\n\(extra)Connection: close\r\n\r\n"
        return oneAnswerStore(Array(head.utf8) + body, piece: 1000)
    }
}
