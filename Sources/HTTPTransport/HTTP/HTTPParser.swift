/// Parses HTTP/1.x request heads from bytes: a pure function, no sockets, so every boundary and limit is
/// testable. `scan` is called with everything received so far and answers "need more", "here is a request head
/// (as offsets into those bytes)", or "reject with this status"; it allocates nothing unless it rejects.
/// `parse` is the same with the head made into an owned `HTTPRequest`.
package struct HTTPParser: Sendable {
    package enum Result: Equatable {
        case incomplete
        case request(HTTPRequest, consumed: Int)
        case failure(HTTPStatus, String)
    }

    package enum Scan: Equatable {
        case incomplete
        case head(RequestHead)
        case failure(HTTPStatus, String)
    }

    package var maxRequestLine = 8 * 1024
    package var maxHeaderBytes = 16 * 1024
    package var maxHeaderCount = 100
    /// Bodies up to this many bytes are read and ignored; larger ones are refused with 413.
    package var maxBody = 4096

    package init() {}

    package func parse(_ bytes: UnsafeRawBufferPointer) -> Result {
        switch scan(bytes) {
        case .incomplete: .incomplete
        case let .failure(status, reason): .failure(status, reason)
        case let .head(head): .request(HTTPRequest(head, in: bytes), consumed: head.length)
        }
    }

    package func scan(_ bytes: UnsafeRawBufferPointer) -> Scan {
        let count = bytes.count
        // Request line: method SP target SP HTTP/d.d
        guard let lineEnd = Self.find(0x0A, in: bytes, from: 0, limit: min(count, maxRequestLine + 2)) else {
            return count > maxRequestLine ? .failure(.uriTooLong, "the request line is longer than \(maxRequestLine) bytes") : .incomplete
        }
        var line = lineEnd
        if line > 0, bytes[line - 1] == UInt8(ascii: "\r") { line -= 1 }
        guard line <= maxRequestLine else { return .failure(.uriTooLong, "the request line is longer than \(maxRequestLine) bytes") }
        guard let firstSpace = Self.find(0x20, in: bytes, from: 0, limit: line),
              let secondSpace = Self.find(0x20, in: bytes, from: firstSpace + 1, limit: line),
              Self.find(0x20, in: bytes, from: secondSpace + 1, limit: line) == nil,
              firstSpace > 0, secondSpace > firstSpace + 1,
              Self.all(bytes, 0 ..< firstSpace, Self.isToken) else {
            return .failure(.badRequest, "malformed request line")
        }
        let v = secondSpace + 1
        guard line - v == 8, Self.equals(bytes, v ..< v + 5, "HTTP/"), bytes[v + 6] == UInt8(ascii: "."),
              Self.isDigit(bytes[v + 5]), Self.isDigit(bytes[v + 7]) else {
            return .failure(.badRequest, "malformed HTTP version")
        }
        guard bytes[v + 5] == UInt8(ascii: "1") else { return .failure(.versionNotSupported, "only HTTP/1.0 and HTTP/1.1 are spoken here") }
        let minor = Int(bytes[v + 7] - 48)
        let target = firstSpace + 1 ..< secondSpace
        guard Self.all(bytes, target, { $0 > 0x20 && $0 < 0x7F }) else { return .failure(.badRequest, "the request target has invalid characters") }

        // Header fields: validated one by one; only the ones framing and the fast path use are remembered.
        var fields = Fields()
        var fieldCount = 0
        var position = lineEnd + 1
        let fieldsStart = position
        var fieldsEnd = position
        let headerLimit = lineEnd + 1 + maxHeaderBytes
        while true {
            guard let end = Self.find(0x0A, in: bytes, from: position, limit: min(count, headerLimit + 2)) else {
                return count >= headerLimit ? .failure(.headersTooLarge, "the header section is larger than \(maxHeaderBytes) bytes") : .incomplete
            }
            var stop = end
            if stop > position, bytes[stop - 1] == UInt8(ascii: "\r") { stop -= 1 }
            if stop == position {
                fieldsEnd = position
                position = end + 1
                break
            }
            guard end < headerLimit else { return .failure(.headersTooLarge, "the header section is larger than \(maxHeaderBytes) bytes") }
            guard fieldCount < maxHeaderCount else { return .failure(.headersTooLarge, "more than \(maxHeaderCount) header fields") }
            let first = bytes[position]
            guard first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else { return .failure(.badRequest, "folded or empty header line") }
            guard let colon = Self.find(UInt8(ascii: ":"), in: bytes, from: position, limit: stop), colon > position,
                  Self.all(bytes, position ..< colon, Self.isToken) else {
                return .failure(.badRequest, "malformed header field")
            }
            guard Self.all(bytes, colon + 1 ..< stop, { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position ..< colon]), as: UTF8.self).lowercased()
                return .failure(.badRequest, "control characters in header \(name)")
            }
            fields.note(name: position ..< colon, value: Self.trimmed(bytes, colon + 1 ..< stop), in: bytes)
            fieldCount += 1
            position = end + 1
        }

        // Framing: anything two parties could read two ways (request smuggling) is refused, never guessed.
        var bodyLength = 0
        if let encoding = fields.transferEncoding {
            if fields.lengthCount > 0 {
                return .failure(.badRequest, "Transfer-Encoding and Content-Length together are refused")
            }
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[encoding]), as: UTF8.self)
            return .failure(.contentTooLarge, "request bodies are not accepted (Transfer-Encoding: \(value))")
        }
        if let length = fields.contentLength {
            guard fields.lengthCount == 1, !length.isEmpty, length.count <= 18, Self.all(bytes, length, Self.isDigit) else {
                return .failure(.badRequest, "invalid Content-Length")
            }
            var n = 0
            for i in length { n = n * 10 + Int(bytes[i] - 48) }
            guard n <= maxBody else { return .failure(.contentTooLarge, "request bodies over \(maxBody) bytes are not accepted") }
            bodyLength = n
        }
        if minor == 1 && fields.hosts == 0 {
            return .failure(.badRequest, "HTTP/1.1 requests need a Host header")
        }
        if fields.hosts > 1 { return .failure(.badRequest, "more than one Host header") }
        guard count >= position + bodyLength else { return .incomplete }
        let keepAlive = minor >= 1 ? !fields.close : fields.keepAlive
        return .head(RequestHead(method: 0 ..< firstSpace, target: target, versionMinor: minor, fields: fieldsStart ..< fieldsEnd,
                                 ifNoneMatch: fields.ifNoneMatch, keepAlive: keepAlive, length: position + bodyLength,
                                 bodyStart: position, cookie: fields.cookies == 1 ? fields.cookie : nil,
                                 authorization: fields.authorization || fields.cookies > 1))
    }

    /// What framing and the fast path need from the header fields, gathered as they are validated.
    private struct Fields {
        var contentLength: Range<Int>?
        var lengthCount = 0
        var transferEncoding: Range<Int>?
        var hosts = 0
        var ifNoneMatch: Range<Int>?
        var cookie: Range<Int>?
        var cookies = 0
        var authorization = false
        /// `Connection` named `close` / `keep-alive` (in any of its fields, any case).
        var close = false
        var keepAlive = false

        mutating func note(name: Range<Int>, value: Range<Int>, in bytes: UnsafeRawBufferPointer) {
            switch name.count {
            case 4 where HTTPParser.equalsFolded(bytes, name, "host"):
                hosts += 1
            case 6 where HTTPParser.equalsFolded(bytes, name, "cookie"):
                if cookie == nil { cookie = value }
                cookies += 1
            case 10 where HTTPParser.equalsFolded(bytes, name, "connection"):
                HTTPParser.forEachElement(of: value, in: bytes) { element in
                    if HTTPParser.equalsFolded(bytes, element, "close") { close = true }
                    if HTTPParser.equalsFolded(bytes, element, "keep-alive") { keepAlive = true }
                }
            case 13 where HTTPParser.equalsFolded(bytes, name, "if-none-match"):
                if ifNoneMatch == nil { ifNoneMatch = value }
            case 13 where HTTPParser.equalsFolded(bytes, name, "authorization"):
                authorization = true
            case 14 where HTTPParser.equalsFolded(bytes, name, "content-length"):
                if contentLength == nil { contentLength = value }
                lengthCount += 1
            case 17 where HTTPParser.equalsFolded(bytes, name, "transfer-encoding"):
                if transferEncoding == nil { transferEncoding = value }
            default:
                break
            }
        }
    }

    /// Calls `body` with each element of the comma-separated value at `range`, without the spaces and tabs
    /// around it (RFC 9110 §5.6.1), empty elements included.
    package static func forEachElement(of range: Range<Int>, in bytes: UnsafeRawBufferPointer, _ body: (Range<Int>) -> Void) {
        var start = range.lowerBound
        while true {
            let end = find(UInt8(ascii: ","), in: bytes, from: start, limit: range.upperBound) ?? range.upperBound
            body(trimmed(bytes, start ..< end))
            guard end < range.upperBound else { return }
            start = end + 1
        }
    }

    /// Whether `bytes[range]` is `text` with ASCII letters in any case (`text` is lower-case).
    package static func equalsFolded(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for (k, i) in range.enumerated() {
            var c = bytes[i]
            if c >= 65 && c <= 90 { c += 32 }
            if c != expected[k] { return false }
        }
        return true
    }

    /// Whether `bytes[range]` is exactly `text`.
    package static func equals(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for (k, i) in range.enumerated() where bytes[i] != expected[k] { return false }
        return true
    }

    /// `range` without the spaces and tabs at either end.
    static func trimmed(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound, upper = range.upperBound
        while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
        while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
        return lower ..< upper
    }

    /// Index of the next `byte` in `bytes[from ..< limit]`.
    private static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from: Int, limit: Int) -> Int? {
        var i = from
        while i < limit {
            if bytes[i] == byte { return i }
            i += 1
        }
        return nil
    }

    private static func all(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ test: (UInt8) -> Bool) -> Bool {
        for i in range where !test(bytes[i]) { return false }
        return true
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// RFC 9110 tchar.
    package static func isToken(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
