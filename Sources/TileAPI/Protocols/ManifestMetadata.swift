import Pyramid
import ImageCodecs

/// A photo's `PhotoMetadata` as a IIIF Presentation 3 manifest carries it: `label` from the title, `summary` from
/// the caption, `metadata` label/value pairs, `requiredStatement` for credit and copyright, `rights` for a Creative
/// Commons or RightsStatements.org URI (the only ones the specification allows there), `navDate` from the date
/// taken, and `navPlace` (the navPlace extension) from the GPS position while location is published.
struct ManifestMetadata {
    static let navPlaceContext = "http://iiif.io/api/extension/navplace/context.json"

    let metadata: PhotoMetadata

    /// The manifest's `label`: the photo's title, else the file name.
    func label(fileName: String) -> JSONValue { Self.text(metadata.title ?? fileName) }

    /// The members to add to a manifest whose id is `id`.
    func members(id: String) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        let m = metadata
        if let description = m.description { members.append(("summary", Self.text(description))) }
        let pairs = self.pairs
        if !pairs.isEmpty {
            members.append(("metadata", .array(pairs.map { .object([("label", Self.english($0.0)), ("value", Self.text($0.1))]) })))
        }
        let statement = [m.credit, m.copyright].compactMap { $0 }
        if !statement.isEmpty {
            members.append(("requiredStatement", .object([("label", Self.english("Attribution")),
                                                          ("value", .object([("none", .array(statement.map(JSONValue.string)))]))])))
        }
        if let rights = m.licence.flatMap(Self.rights) { members.append(("rights", .string(rights))) }
        if let date = m.dateTaken.flatMap(Self.utc) { members.append(("navDate", .string(date))) }
        if let place = m.location { members.append(("navPlace", navPlace(place, id: id))) }
        return members
    }

    /// The label/value pairs, in the order a reader wants them; title and caption are `label` and `summary`.
    var pairs: [(String, String)] {
        let m = metadata
        let candidates: [(String, String?)] = [
            ("Creator", m.creators.isEmpty ? nil : m.creators.joined(separator: "; ")),
            ("Date taken", m.dateTaken),
            ("Keywords", m.keywords.isEmpty ? nil : m.keywords.joined(separator: ", ")),
            ("Credit", m.credit),
            ("Copyright", m.copyright),
            ("Licence", m.licence),
            ("Camera", m.camera),
            ("Lens", m.lens),
            ("Exposure", m.exposureSummary),
            ("Location", m.location.map { "\(JSONValue.format($0.latitude)), \(JSONValue.format($0.longitude))" }),
        ]
        return candidates.compactMap { label, value in value.map { (label, $0) } }
    }

    /// A GeoJSON FeatureCollection of one point, ids under the manifest's.
    private func navPlace(_ place: PhotoMetadata.Location, id: String) -> JSONValue {
        .object([
            ("id", .string(id + "/feature-collection/1")),
            ("type", "FeatureCollection"),
            ("features", .array([.object([
                ("id", .string(id + "/feature/1")),
                ("type", "Feature"),
                ("properties", .object([("label", Self.english("Where the photo was taken"))])),
                ("geometry", .object([("type", "Point"),
                                      ("coordinates", .array([.double(place.longitude), .double(place.latitude)]))])),
            ])])),
        ])
    }

    /// A licence URI the `rights` property may hold, in the `http` form the registries publish; nil for any other.
    static func rights(_ uri: String) -> String? {
        var u = uri
        if u.hasPrefix("https://") { u = "http://" + u.dropFirst(8) }
        let allowed = ["http://creativecommons.org/licenses/", "http://creativecommons.org/publicdomain/",
                       "http://rightsstatements.org/vocab/"]
        guard allowed.contains(where: { u.hasPrefix($0) && u.count > $0.count }),
              !u.contains(where: { $0 == " " || $0 == "\"" || $0 == "<" || $0 == ">" }) else { return nil }
        return u
    }

    /// `2024-06-01T14:30:00+02:00` as `2024-06-01T12:30:00Z`: navDate is UTC. A time without an offset is taken as
    /// UTC, the only reading that needs no guess about the camera's clock.
    static func utc(_ date: String) -> String? {
        let b = Array(date.utf8)
        guard b.count == 19 || b.count == 25 else { return nil }
        let number = { (at: Int, n: Int) in b[at ..< at + n].reduce(0) { $0 * 10 + Int($1) - 48 } }
        var seconds = days(year: number(0, 4), month: number(5, 2), day: number(8, 2)) * 86_400
            + number(11, 2) * 3600 + number(14, 2) * 60 + number(17, 2)
        if b.count == 25 { seconds -= (b[19] == 45 ? -1 : 1) * (number(20, 2) * 3600 + number(23, 2) * 60) }
        let (day, rest) = (seconds / 86_400 - (seconds % 86_400 < 0 ? 1 : 0), (seconds % 86_400 + 86_400) % 86_400)
        let (y, m, d) = civil(fromDays: day)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        guard y >= 1, y <= 9999 else { return nil }
        let year = String(repeating: "0", count: 4 - String(y).count) + String(y)
        return "\(year)-\(two(m))-\(two(d))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// A language map of text in no known language: what the file says is in whatever language it was written, and
    /// file and folder names, which are in no one language either.
    static func text(_ value: String) -> JSONValue { .object([("none", .array([.string(value)]))]) }

    /// A language map of our own English labels.
    static func english(_ value: String) -> JSONValue { .object([("en", .array([.string(value)]))]) }
}
