/// A request as its bytes, for a `FastResponder`: valid only during the call it is passed to.
package struct RequestView {
    /// The request's bytes, from its first byte: `head`'s offsets are into these.
    package let bytes: UnsafeRawBufferPointer
    package let head: RequestHead

    package init(bytes: UnsafeRawBufferPointer, head: RequestHead) {
        self.bytes = bytes
        self.head = head
    }

    package var method: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[head.method]) }
    package var target: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[head.target]) }
    /// The first `If-None-Match` value, trimmed.
    package var ifNoneMatch: UnsafeRawBufferPointer? {
        head.ifNoneMatch.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
    }

    /// The one `Cookie` field's value, if the request has exactly one.
    package var cookie: UnsafeRawBufferPointer? {
        head.cookie.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
    }

    /// Whether the request carries credentials besides one `Cookie` field (`Authorization`, several cookies).
    package var hasOtherCredentials: Bool { head.authorization }

    package var isGet: Bool { HTTPParser.equals(bytes, head.method, "GET") }
    package var isHead: Bool { HTTPParser.equals(bytes, head.method, "HEAD") }
}

/// An answer made entirely of bytes that live at least as long as the call that hands it over: the header
/// fields the responder owns (`Content-Type`, validators, caching, CORS; not `Date`, `Server`,
/// `Content-Length` or `Connection`, which the transport frames as for every response) and the body.
package struct FastResponse {
    /// 200 or 304: the statuses the fast path answers with.
    package var notModified: Bool
    /// Header lines, each ending in CRLF.
    package var fields: UnsafeRawBufferPointer
    /// More header lines after `fields` (shared, prebuilt ones), each ending in CRLF.
    package var moreFields: UnsafeRawBufferPointer
    /// The body of a 200; its length is the `Content-Length` (also of a HEAD answer, which does not send it).
    package var body: UnsafeRawBufferPointer

    package init(notModified: Bool, fields: UnsafeRawBufferPointer, moreFields: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) {
        self.notModified = notModified
        self.fields = fields
        self.moreFields = moreFields
        self.body = body
    }
}

/// What answers the commonest requests (a cached tile) straight from their bytes, before any `HTTPRequest` is
/// made: no allocation, no routing table, nothing shared but what it looks up. One per event loop, used only on
/// that loop's thread, so it may keep state without locks. It declines (returns false) anything it does not
/// answer completely; the transport then makes the owned request and asks the `HTTPResponder` as usual.
package protocol FastResponder: AnyObject {
    /// Answers `request` by calling `send` once, synchronously, and returns true; or returns false without
    /// calling it. `started` is when the head was complete (monotonic seconds).
    func answer(_ request: RequestView, started: Double, send: (FastResponse) -> Void) -> Bool
}
