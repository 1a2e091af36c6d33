import POSIXSupport
import HTTPTransport

/// A request target split into percent-decoded path segments and query parameters. Decoding happens once,
/// here: a segment that decodes to NUL, or that is `.` or `..`, is refused. A segment with an encoded slash
/// (`%2F`, how IIIF writes ids like `2024/iceland/glacier`) is kept, marked, and only an identifier capture of a
/// route may take it, whole components only (`Route.match`), so nothing can be tricked into another directory.
struct RequestPath: Sendable {
    let segments: [String]
    /// Indices of segments that held an encoded `/`.
    let slashed: Set<Int>
    let query: [String: String]

    init(_ request: HTTPRequest) throws(APIError) {
        var path = request.path
        if !path.hasPrefix("/") {
            // absolute-form (http://host/path): keep the path part only
            // absolute-form: skip "scheme://authority"
            let bytes = Array(path.utf8)
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.count > colon + 3,
                  bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/"),
                  let slash = bytes[(colon + 3)...].firstIndex(of: UInt8(ascii: "/")) else {
                throw .badRequest("the request target must be a path starting with /")
            }
            path = Substring(String(decoding: bytes[slash...], as: UTF8.self))
        }
        var segments: [String] = []
        var slashed: Set<Int> = []
        for bytes in path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            let segment = try Self.percentDecode(Substring(bytes), plusIsSpace: false)
            if segment.utf8.contains(0) { throw .badRequest("NUL bytes are not allowed in paths") }
            if segment.utf8.contains(UInt8(ascii: "/")) {
                // Bytes, not characters: a '/' followed by a combining mark is one Character, and must still split.
                if segment.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains(where: Self.isDotPart) {
                    throw .badRequest("an identifier with encoded slashes must not have empty, '.' or '..' parts")
                }
                slashed.insert(segments.count)
            }
            if segment == ".." || segment == "." { throw .badRequest("'.' and '..' path segments are not allowed") }
            segments.append(segment)
        }
        if segments == [""] { segments = [] }
        self.segments = segments
        self.slashed = slashed
        var query: [String: String] = [:]
        for pair in request.query.utf8.split(separator: UInt8(ascii: "&")) where !pair.isEmpty {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.percentDecode(Substring(parts[0]), plusIsSpace: true)
            let value = parts.count > 1 ? try Self.percentDecode(Substring(parts[1]), plusIsSpace: true) : ""
            if query[name] == nil { query[name] = value }
        }
        self.query = query
    }

    /// An empty, `.` or `..` part of a path (as bytes).
    static func isDotPart(_ part: some Collection<UInt8>) -> Bool {
        part.isEmpty || part.elementsEqual([UInt8(ascii: ".")]) || part.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
    }

    /// `%XX` decoding (and `+` as space in queries); malformed escapes and invalid UTF-8 are refused.
    static func percentDecode(_ text: Substring, plusIsSpace: Bool) throws(APIError) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        guard let bytes = PathText.percentDecoded(text.utf8, plusIsSpace: plusIsSpace) else { throw .badRequest("malformed percent-escape in '\(text)'") }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .badRequest("the path is not valid UTF-8 after decoding") }
        return decoded
    }
}
