import Foundation
import XCTest

/// A store on 127.0.0.1 for one request: it reads the request's head, calls `beforeAnswer`, writes `answer` in
/// pieces of at most `piece` bytes (so that they reach the client split as the store's packets would) and closes.
/// Its port.
func oneAnswerStore(_ answer: [UInt8], piece: Int = 1 << 20, beforeAnswer: @escaping @Sendable () -> Void = {}) -> Int {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    XCTAssertGreaterThanOrEqual(listener, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = bind(listener, $0, length) }
    }
    XCTAssertEqual(listen(listener, 4), 0)
    withUnsafeMutablePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
    }
    Thread {
        defer { close(listener) }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var request = [UInt8](repeating: 0, count: 8192)
        var received = 0
        while received < request.count {
            let n = request.withUnsafeMutableBytes { read(connection, $0.baseAddress! + received, $0.count - received) }
            if n <= 0 { break }
            received += n
            if String(decoding: request[0 ..< received], as: UTF8.self).contains("\r\n\r\n") { break }
        }
        beforeAnswer()
        var sent = 0
        while sent < answer.count {
            let n = answer.withUnsafeBytes { write(connection, $0.baseAddress! + sent, min(piece, answer.count - sent)) }
            if n <= 0 { return }
            sent += n
        }
    }.start()
    return Int(UInt16(bigEndian: address.sin_port))
}
