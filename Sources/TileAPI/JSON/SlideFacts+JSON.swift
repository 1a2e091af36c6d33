import ImageCodecs

extension SlideFacts {
    /// The slide's published facts as `/api/images/{id}` gives them (`slide`): only these fields, whatever else
    /// the scanner wrote; `associated` lists the images this identity may have (`labels`: the label and macro too).
    func json(id: String, labels: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [("vendor", .string(vendor))]
        if let objectivePower { members.append(("objectivePower", .double(objectivePower))) }
        if let x = micronsPerPixelX, let y = micronsPerPixelY {
            members.append(("micronsPerPixel", .object([("x", .double(x)), ("y", .double(y))])))
        }
        if let scanDate { members.append(("scanDate", .string(scanDate))) }
        members.append(("offset", .object([("x", .int(originX)), ("y", .int(originY))])))
        members.append(("associated", .array(associated.filter { labels || !$0.showsLabel }.map { image in
            .object([("name", .string(image.name)), ("width", .int(image.width)), ("height", .int(image.height)),
                     ("url", .string(URLPath.associated(id, image.name)))])
        })))
        return .object(members)
    }
}
