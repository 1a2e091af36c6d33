/// Where the parts of one validated request head lie in the bytes it was parsed from: offsets only, so finding
/// them copies nothing and allocates nothing. `HTTPRequest(_:in:)` makes the owned form when a request needs it.
package struct RequestHead: Sendable, Equatable {
    package var method: Range<Int>
    /// The request target as sent (not percent-decoded).
    package var target: Range<Int>
    package var versionMinor: Int
    /// The header lines, from the first field to the end of the last (before the blank line).
    package var fields: Range<Int>
    /// The value of the first `If-None-Match` field, without the white space around it.
    package var ifNoneMatch: Range<Int>?
    /// Whether the connection stays open after the response (HTTP/1.1 default, `Connection` honoured).
    package var keepAlive: Bool
    /// Bytes of the head and its body: where the next pipelined request starts.
    package var length: Int
    /// Where the body (`Content-Length` bytes, at most the parser's `maxBody`) starts; it ends at `length`.
    package var bodyStart: Int
    /// The value of the `Cookie` field, when there is exactly one.
    package var cookie: Range<Int>?
    /// Credentials the fast path does not read: an `Authorization` field, or more than one `Cookie` field.
    package var authorization: Bool
}

extension HTTPRequest {
    /// The owned request of `head`, whose offsets are into `bytes` (already validated by `HTTPParser.scan`).
    package init(_ head: RequestHead, in bytes: UnsafeRawBufferPointer) {
        var headers: [HTTPHeader] = []
        var position = head.fields.lowerBound
        while position < head.fields.upperBound {
            var end = position
            while end < head.fields.upperBound && bytes[end] != 0x0A { end += 1 }
            var stop = end
            if stop > position, bytes[stop - 1] == UInt8(ascii: "\r") { stop -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[position ..< stop])
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                headers.append(HTTPHeader(name: String(decoding: line[..<colon], as: UTF8.self).lowercased(),
                                          value: HTTPHeader.trimmed(line[(colon + 1)...])))
            }
            position = end + 1
        }
        self.init(method: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[head.method]), as: UTF8.self),
                  target: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[head.target]), as: UTF8.self),
                  versionMinor: head.versionMinor, headers: headers, keepAlive: head.keepAlive,
                  body: Array(UnsafeRawBufferPointer(rebasing: bytes[head.bodyStart ..< head.length])))
    }
}
