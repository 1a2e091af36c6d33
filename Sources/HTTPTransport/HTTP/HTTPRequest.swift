/// One parsed request head. Header names are lower-cased; the target is kept raw (not yet percent-decoded).
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var target: String
    public var versionMinor: Int
    public var headers: [HTTPHeader]
    /// Whether the connection stays open after the response (HTTP/1.1 default, `Connection` honoured).
    public var keepAlive: Bool
    /// The body: a small form at most (the parser refuses more than its `maxBody`).
    public var body: [UInt8]
    /// The address the connection came from (`127.0.0.1`, `::1`), as the socket says, not as any header claims;
    /// empty for requests made in process.
    public var peer: String

    public init(method: String, target: String, versionMinor: Int, headers: [HTTPHeader], keepAlive: Bool,
                body: [UInt8] = [], peer: String = "") {
        self.method = method
        self.target = target
        self.versionMinor = versionMinor
        self.headers = headers
        self.keepAlive = keepAlive
        self.body = body
        self.peer = peer
    }

    /// The path part of the target, before `?`.
    public var path: Substring {
        target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
    }

    /// The query part of the target, after `?`, or empty.
    public var query: Substring {
        target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[target.utf8.index(after: $0)...] } ?? ""
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    public var isHead: Bool { method == "HEAD" }

    /// The first element of a comma-separated header (`X-Forwarded-Host: a, b` is `a`), as proxies append theirs.
    public func firstElement(_ name: String) -> String? {
        header(name).flatMap { HTTPHeader.elements(of: $0).first }
    }
}
