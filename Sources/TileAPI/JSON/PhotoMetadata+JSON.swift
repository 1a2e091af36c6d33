import Pyramid
import ImageCodecs

extension PhotoMetadata {
    /// The `metadata` object of `/api/images/{id}`: the fields the file carries, by name, nothing else.
    var json: JSONValue {
        var members: [(String, JSONValue)] = []
        func add(_ name: String, _ value: String?) { if let value { members.append((name, .string(value))) } }
        func add(_ name: String, _ values: [String]) { if !values.isEmpty { members.append((name, .array(values.map(JSONValue.string)))) } }
        func add(_ name: String, _ value: Double?) { if let value { members.append((name, .double(value))) } }
        add("title", title)
        add("description", description)
        add("creators", creators)
        add("credit", credit)
        add("copyright", copyright)
        add("licence", licence)
        add("keywords", keywords)
        add("dateTaken", dateTaken)
        add("make", make)
        add("model", model)
        add("lens", lens)
        add("exposureTime", exposureTime)
        add("fNumber", fNumber)
        if let iso { members.append(("iso", .int(iso))) }
        if let rating { members.append(("rating", .int(rating))) }
        add("focalLength", focalLength)
        if let location {
            var place: [(String, JSONValue)] = [("latitude", .double(location.latitude)), ("longitude", .double(location.longitude))]
            if let altitude = location.altitude { place.append(("altitude", .double(altitude))) }
            members.append(("location", .object(place)))
        }
        return .object(members)
    }

    /// Exposure in one line, as a caption under a photo reads it: `1/250 s · f/8 · ISO 100 · 35 mm`.
    var exposureSummary: String? {
        var parts: [String] = []
        if let exposureTime { parts.append(exposureTime + " s") }
        if let fNumber { parts.append("f/" + JSONValue.format((fNumber * 10).rounded() / 10)) }
        if let iso { parts.append("ISO \(iso)") }
        if let focalLength { parts.append(JSONValue.format((focalLength * 10).rounded() / 10) + " mm") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// Make and model without the make said twice (`Canon Canon EOS R5`).
    var camera: String? {
        guard let model else { return make }
        /* "Canon" and "Canon EOS R5"; "NIKON CORPORATION" and "NIKON Z 8": the make's first word starts the model. */
        guard let make, let brand = make.lowercased().split(separator: " ").first, !model.lowercased().hasPrefix(brand) else {
            return model
        }
        return make + " " + model
    }
}
