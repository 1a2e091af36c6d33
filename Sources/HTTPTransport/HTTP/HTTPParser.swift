/// Parses HTTP/1.x request heads from bytes: a pure function, no sockets, so every boundary and limit is
/// testable. `parse` is called with everything received so far and answers "need more", "here is a request
/// that used N bytes", or "reject with this status".
public struct HTTPParser: Sendable {
    public enum Result: Equatable {
        case incomplete
        case request(HTTPRequest, consumed: Int)
        case failure(HTTPStatus, String)
    }

    public var maxRequestLine = 8 * 1024
    public var maxHeaderBytes = 16 * 1024
    public var maxHeaderCount = 100
    /// Bodies up to this many bytes are read and ignored; larger ones are refused with 413.
    public var maxBody = 1024

    public init() {}

    public func parse(_ bytes: UnsafeRawBufferPointer) -> Result {
        let count = bytes.count
        // Request line.
        guard let lineEnd = Self.find(newlineIn: bytes, from: 0, limit: min(count, maxRequestLine + 2)) else {
            return count > maxRequestLine ? .failure(.uriTooLong, "the request line is longer than \(maxRequestLine) bytes") : .incomplete
        }
        var line = lineEnd
        if line > 0, bytes[line - 1] == UInt8(ascii: "\r") { line -= 1 }
        guard line <= maxRequestLine else { return .failure(.uriTooLong, "the request line is longer than \(maxRequestLine) bytes") }
        let requestLine = Array(bytes[0 ..< line])
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              parts[0].allSatisfy(Self.isToken) else {
            return .failure(.badRequest, "malformed request line")
        }
        let version = Array(parts[2])
        guard version.count == 8, Array(version[0 ..< 5]) == Array("HTTP/".utf8), version[6] == UInt8(ascii: "."),
              (48 ... 57).contains(version[5]), (48 ... 57).contains(version[7]) else {
            return .failure(.badRequest, "malformed HTTP version")
        }
        guard version[5] == UInt8(ascii: "1") else { return .failure(.versionNotSupported, "only HTTP/1.0 and HTTP/1.1 are spoken here") }
        let minor = Int(version[7] - 48)
        let target = Array(parts[1])
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return .failure(.badRequest, "the request target has invalid characters") }

        // Header fields.
        var headers: [(name: String, value: String)] = []
        var position = lineEnd + 1
        let headerLimit = lineEnd + 1 + maxHeaderBytes
        while true {
            guard let end = Self.find(newlineIn: bytes, from: position, limit: min(count, headerLimit + 2)) else {
                return count >= headerLimit ? .failure(.headersTooLarge, "the header section is larger than \(maxHeaderBytes) bytes") : .incomplete
            }
            var stop = end
            if stop > position, bytes[stop - 1] == UInt8(ascii: "\r") { stop -= 1 }
            if stop == position { position = end + 1; break }
            guard end < headerLimit else { return .failure(.headersTooLarge, "the header section is larger than \(maxHeaderBytes) bytes") }
            guard headers.count < maxHeaderCount else { return .failure(.headersTooLarge, "more than \(maxHeaderCount) header fields") }
            let field = bytes[position ..< stop]
            guard let first = field.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
                return .failure(.badRequest, "folded or empty header line")
            }
            guard let colon = field.firstIndex(of: UInt8(ascii: ":")), colon > position,
                  field[position ..< colon].allSatisfy(Self.isToken) else {
                return .failure(.badRequest, "malformed header field")
            }
            let name = String(decoding: field[position ..< colon], as: UTF8.self).lowercased()
            let raw = field[(colon + 1)...]
            guard raw.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                return .failure(.badRequest, "control characters in header \(name)")
            }
            let value = HTTPHeader.trimmed(raw)
            headers.append((name, value))
            position = end + 1
        }

        // Framing: anything two parties could read two ways (request smuggling) is refused, never guessed.
        var bodyLength = 0
        let lengths = headers.filter { $0.name == "content-length" }.map(\.value)
        if let encoding = headers.first(where: { $0.name == "transfer-encoding" }) {
            if !lengths.isEmpty {
                return .failure(.badRequest, "Transfer-Encoding and Content-Length together are refused")
            }
            return .failure(.contentTooLarge, "request bodies are not accepted (Transfer-Encoding: \(encoding.value))")
        }
        if let firstLength = lengths.first {
            guard lengths.count == 1, !firstLength.isEmpty, firstLength.utf8.allSatisfy({ (48 ... 57).contains($0) }),
                  firstLength.utf8.count <= 18, let n = Int(firstLength) else {
                return .failure(.badRequest, "invalid Content-Length")
            }
            guard n <= maxBody else { return .failure(.contentTooLarge, "request bodies over \(maxBody) bytes are not accepted") }
            bodyLength = n
        }
        let hosts = headers.count(where: { $0.name == "host" })
        if minor == 1 && hosts == 0 {
            return .failure(.badRequest, "HTTP/1.1 requests need a Host header")
        }
        if hosts > 1 { return .failure(.badRequest, "more than one Host header") }
        guard count >= position + bodyLength else { return .incomplete }

        let tokens = headers.filter { $0.name == "connection" }.flatMap { HTTPHeader.elements(of: $0.value.lowercased()) }
        let keepAlive = minor >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive")
        let head = HTTPRequest(method: String(decoding: parts[0], as: UTF8.self),
                                   target: String(decoding: target, as: UTF8.self),
                                   versionMinor: minor, headers: headers.map { HTTPHeader(name: $0.name, value: $0.value) },
                                   keepAlive: keepAlive)
        return .request(head, consumed: position + bodyLength)
    }

    /// Index of the next `\n` in `bytes[from ..< limit]`.
    private static func find(newlineIn bytes: UnsafeRawBufferPointer, from: Int, limit: Int) -> Int? {
        guard from < limit else { return nil }
        var i = from
        while i < limit {
            if bytes[i] == 0x0A { return i }
            i += 1
        }
        return nil
    }

    /// RFC 9110 tchar.
    public static func isToken(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(c)
        }
    }
}
