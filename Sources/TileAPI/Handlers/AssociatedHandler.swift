import HTTPTransport
import ImageCodecs

/// `/images/{id}/associated/{name}.jpg`: a whole-slide image's label, macro or thumbnail, under the image's own
/// rule. The label and the macro (which shows the label) often carry a patient's name or number: they are sent
/// only where the folder's rule says `slide_labels = true`, or, without an access file, with `--slide-labels on`.
struct AssociatedHandler: Sendable {
    let slideLabels: Bool
    let quality: Int

    init(_ services: Services) {
        slideLabels = services.options.slideLabels
        quality = services.tiles.options.quality
    }

    /// Whether this request may have a slide's label and macro.
    static func showsLabels(_ context: RequestContext, _ withoutAccessFile: Bool) -> Bool {
        context.access.map(\.slideLabels) ?? withoutAccessFile
    }

    /// Reads the slide: off the event loop (the route's lane).
    func image(_ context: RequestContext) throws -> HandlerOutcome {
        let image = try context.admitted(), id = image.id
        let file = context.capture("name")
        guard file.hasSuffix(".jpg"), file.count > 4 else {
            throw APIError.notFound("an associated image is asked for as NAME.jpg, not '\(file)'")
        }
        let name = String(file.dropLast(4))
        let snapshot = try image.snapshot(context)
        guard let slide = snapshot.source.slide else {
            throw APIError.notFound("'\(id)' is not a whole-slide image: it has no associated images")
        }
        guard let entry = slide.associated.first(where: { $0.name == name }) else {
            throw APIError.notFound("slide '\(id)' has no associated image '\(name)' (it has: \(slide.associated.map(\.name).joined(separator: ", ")))")
        }
        if entry.showsLabel, !Self.showsLabels(context, slideLabels) {
            throw APIError.forbidden("the \(name) of slide '\(id)' is not sent: a slide's label often carries a patient's name or number "
                + "(its folder's rule can allow it with slide_labels = true)")
        }
        if let longSide = image.limit.longSide, max(entry.width, entry.height) > longSide {
            throw APIError.forbidden("the \(name) of slide '\(id)' is larger than this image is shown to you")
        }
        guard let pixels = try snapshot.source.associatedImage(name) else {
            throw APIError.notFound("slide '\(id)' has no associated image '\(name)'")
        }
        let bytes = try ImageEncoder.encode(pixels, as: .jpeg, quality: quality)
        return .response(.image(.bytes(bytes), contentType: ImageFormat.jpeg.mimeType,
                                headers: [HTTPHeader(name: "Cache-Control", value: context.access?.personal == true ? "private, max-age=3600" : "max-age=3600")]))
    }
}
