import HTTPTransport
import Pyramid

/// Everything a handler sees of one request: the request, its decoded path and query, captured segments, and
/// where it runs. Services come with the handler, not with the request.
struct RequestContext: Sendable {
    let request: HTTPRequest
    let path: RequestPath
    let captures: [String: String]
    /// Where handlers leave what the access log and metrics report (the cache outcome).
    let notes: RequestNotes
    /// Running on an event loop: nothing may read or `stat` a file (`NeedsFile` moves the request to a pool).
    let onLoop: Bool
    /// What access control decided (nil when the server has none: everything public).
    var access: AccessView?

    func capture(_ name: String) -> String { captures[name] ?? "" }

    /// The same request, to be answered on a pool.
    var offLoop: RequestContext {
        RequestContext(request: request, path: path, captures: captures, notes: notes, onLoop: false, access: access)
    }

    /// A required integer query parameter within `range`.
    func integer(_ name: String, _ range: ClosedRange<Int>, default fallback: Int? = nil) throws(APIError) -> Int {
        guard let text = path.query[name] else {
            if let fallback { return fallback }
            throw .badRequest("\(name) is required: an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        guard let value = Int(text), range.contains(value) else {
            throw .badRequest("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// An optional finite number query parameter.
    func number(_ name: String, _ range: ClosedRange<Double>? = nil) throws(APIError) -> Double? {
        guard let text = path.query[name] else { return nil }
        guard let value = Double(text), value.isFinite, range.map({ $0.contains(value) }) ?? true else {
            if let range { throw .badRequest("\(name) must be a number from \(JSONValue.format(range.lowerBound)) to \(JSONValue.format(range.upperBound))") }
            throw .badRequest("\(name) must be a finite number")
        }
        return value
    }

    /// `{scheme}://{host}` as the client addressed the server (X-Forwarded-Proto/Host win over Host): the
    /// start of every absolute URL in IIIF documents.
    var origin: String {
        let scheme = request.firstElement("x-forwarded-proto") ?? "http"
        let host = request.firstElement("x-forwarded-host") ?? request.header("host") ?? "localhost"
        return "\(scheme)://\(host)"
    }

    /// Image `id` of `tiles`, or 404.
    func image(_ id: String, in tiles: TileService) throws(APIError) -> PyramidImage {
        guard let image = tiles.image(id) else { throw .notFound("no image with id '\(id)'") }
        return image
    }

    /// The current version of `image`. On an event loop, only when that needs no system call (the header is
    /// read and the last change check is recent); otherwise `NeedsFile` sends the request to the I/O pool.
    func snapshot(of image: PyramidImage) throws -> PyramidImage.Snapshot {
        guard onLoop else { return try image.current() }
        guard let known = try image.known() else { throw NeedsFile() }
        return known
    }
}

/// Thrown by a handler on an event loop when its answer needs a file: the router runs it again on the I/O pool.
struct NeedsFile: Error {}
