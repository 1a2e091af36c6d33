import Pyramid

/// Everything a handler sees: the request, its decoded path and query, captured segments, and the services.
struct RequestContext: Sendable {
    let request: HTTPRequest
    let path: RequestPath
    let captures: [String: String]
    let app: Application
    /// Where handlers leave what the access log and metrics report (the cache outcome).
    let notes: RequestNotes

    func capture(_ name: String) -> String { captures[name] ?? "" }

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
        let scheme = request.header("x-forwarded-proto")?.split(separator: ",").first.map { $0.trimmingCharacters(in: " ") } ?? "http"
        let host = request.header("x-forwarded-host")?.split(separator: ",").first.map { $0.trimmingCharacters(in: " ") }
            ?? request.header("host") ?? "localhost:\(app.config.port)"
        return "\(scheme)://\(host)"
    }

    func image(_ id: String) throws(APIError) -> PyramidImage {
        guard let image = app.tiles.image(id) else { throw .notFound("no image with id '\(id)'") }
        return image
    }
}
