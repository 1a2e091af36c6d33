/// One parsed request head. Header names are lower-cased; the target is kept raw (not yet percent-decoded).
package struct HTTPRequest: Sendable, Equatable {
    package var method: String
    package var target: String
    package var versionMinor: Int
    package var headers: [HTTPHeader]
    /// Whether the connection stays open after the response (HTTP/1.1 default, `Connection` honoured).
    package var keepAlive: Bool
    /// The body: a small form at most (the parser refuses more than its `maxBody`).
    package var body: [UInt8]
    /// The address the connection came from (`127.0.0.1`, `::1`), as the socket says, not as any header claims;
    /// empty for requests made in process.
    package var peer: String

    package init(method: String, target: String, versionMinor: Int, headers: [HTTPHeader], keepAlive: Bool,
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
    package var path: Substring {
        target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
    }

    /// The query part of the target, after `?`, or empty.
    package var query: Substring {
        target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[target.utf8.index(after: $0)...] } ?? ""
    }

    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    package var isHead: Bool { method == "HEAD" }

    /// The first element of a comma-separated header (`X-Forwarded-Host: a, b` is `a`), as proxies append theirs.
    package func firstElement(_ name: String) -> String? {
        header(name).flatMap { HTTPHeader.elements(of: $0).first }
    }
}
