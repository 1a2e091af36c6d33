import ImageCodecs

extension SlideFacts {
    /// The slide's published facts as `/api/images/{id}` gives them (`slide`): only these fields, whatever else
    /// the scanner wrote.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("vendor", .string(vendor))]
        if let objectivePower { members.append(("objectivePower", .double(objectivePower))) }
        if let x = micronsPerPixelX, let y = micronsPerPixelY {
            members.append(("micronsPerPixel", .object([("x", .double(x)), ("y", .double(y))])))
        }
        if let scanDate { members.append(("scanDate", .string(scanDate))) }
        members.append(("offset", .object([("x", .int(originX)), ("y", .int(originY))])))
        return .object(members)
    }
}
