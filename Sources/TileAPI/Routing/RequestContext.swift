import HTTPTransport

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
    /// The image the route names, as admitted (`Admission`); nil on routes that name none.
    var subject: AdmittedImage?
    /// `--public-url`: the origin every absolute URL starts with, whatever the request says.
    var publicURL: String?

    func capture(_ name: String) -> String { captures[name] ?? "" }

    /// The same request, to be answered on a pool.
    var offLoop: RequestContext {
        RequestContext(request: request, path: path, captures: captures, notes: notes, onLoop: false, access: access, subject: subject, publicURL: publicURL)
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

    /// `{scheme}://{host}`: `--public-url`, else as the client addressed the server (X-Forwarded-Proto/Host win
    /// over Host): the start of every absolute URL in IIIF documents.
    var origin: String {
        if let publicURL { return publicURL }
        let scheme = request.firstElement("x-forwarded-proto") ?? "http"
        let host = request.firstElement("x-forwarded-host") ?? request.header("host") ?? "localhost"
        return "\(scheme)://\(host)"
    }

    /// The image the route names, as admitted with what this identity may see of it: the only way a handler
    /// reaches an image. A route that names none has none to give.
    func admitted() throws(APIError) -> AdmittedImage {
        guard let subject else { throw .notFound("this address names no image") }
        return subject
    }
}

/// Thrown by a handler on an event loop when its answer needs a file: the router runs it again on the I/O pool.
struct NeedsFile: Error {}
