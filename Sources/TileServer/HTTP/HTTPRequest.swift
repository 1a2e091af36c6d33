/// One parsed request head. Header names are lower-cased; the target is kept raw (not yet percent-decoded).
struct HTTPRequest: Sendable, Equatable {
    var method: String
    var target: String
    var versionMinor: Int
    var headers: [HTTPHeader]
    /// Whether the connection stays open after the response (HTTP/1.1 default, `Connection` honoured).
    var keepAlive: Bool

    /// The path part of the target, before `?`.
    var path: Substring {
        target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
    }

    /// The query part of the target, after `?`, or empty.
    var query: Substring {
        target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[target.utf8.index(after: $0)...] } ?? ""
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    var isHead: Bool { method == "HEAD" }
}
