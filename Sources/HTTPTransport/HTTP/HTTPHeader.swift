/// A header field: as parsed (names lower-cased), or as a handler sets it on a response.
public struct HTTPHeader: Equatable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The elements of a comma-separated field value (`Connection`, `If-None-Match`, `X-Forwarded-Host`), each
    /// without the spaces and tabs around it (RFC 9110 §5.6.1).
    public static func elements(of value: String) -> [String] {
        value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { trimmed($0) }
    }

    /// `bytes` as text without leading and trailing spaces and tabs (optional white space around field values).
    static func trimmed(_ bytes: some BidirectionalCollection<UInt8>) -> String {
        let isText = { (b: UInt8) in b != 0x20 && b != 0x09 }
        guard let first = bytes.firstIndex(where: isText), let last = bytes.lastIndex(where: isText) else { return "" }
        return String(decoding: bytes[first ... last], as: UTF8.self)
    }
}
