import HTTPTransport
import Pyramid
import Library

/// IIIF Presentation API 3.0: a Manifest per image (`/iiif/manifest/{id}`: one Canvas of the image's size
/// painted by the full image, with our Image API service) and a Collection per folder (`/iiif/collection` for
/// the top, `/iiif/collection/{path}` below it) of its sub-folders and images. What Mirador, Universal Viewer
/// and Clover open. Ids are absolute and follow Host and X-Forwarded-*, as info.json's do.
struct PresentationHandler: Sendable {
    static let context = "http://iiif.io/api/presentation/3/context.json"

    let tiles: TileService
    let library: ImageLibrary
    let publishLocation: Bool

    init(_ services: Services) {
        tiles = services.tiles
        library = services.library
        publishLocation = services.options.publishLocation
    }

    func manifest(_ context: RequestContext) throws -> HandlerOutcome {
        let image = try context.admitted()
        let snapshot = try image.snapshot(context)
        let g = snapshot.geometry
        let origin = context.origin
        let id = origin + URLPath.manifest(image.id)
        let service = IIIFHandler.serviceID(context, id: image.id, version: snapshot.version)
        let canvas = id + "/canvas/1"
        let thumb = g.levelSize(g.thumbnailLevel)
        let auth: [(String, JSONValue)] = context.access?.personal == true
            ? [("service", AuthHandler.services(origin: origin, id: image.id, external: context.access!.control.externalSignIn))] : []
        let metadata = library.metadata(of: image.id, embedded: try image.metadata(for: snapshot)).published(location: publishLocation)
        let described = ManifestMetadata(metadata: metadata)
        // What a pixel measures, where the file says so: the canvas carries the physical dimensions service.
        let scale = snapshot.source.info.millimetresPerPixel ?? metadata.millimetresPerPixel
        let physical: [(String, JSONValue)] = scale.map { [("service", .array([PhysicalScale.service($0, serviceID: service)]))] } ?? []
        let fileName = library.name(of: image.id) ?? ImageLibrary.displayName(ofFile: image.masterPath, id: image.id)
        let contexts: JSONValue = metadata.location == nil
            ? .string(Self.context) : .array([.string(ManifestMetadata.navPlaceContext), .string(Self.context)])
        let document: JSONValue = .object([
            ("@context", contexts),
            ("id", .string(id)),
            ("type", "Manifest"),
            ("label", described.label(fileName: fileName)),
        ] + described.members(id: id) + [
            ("thumbnail", .array([imageResource(service + "/full/\(thumb.width),\(thumb.height)/0/default.jpg",
                                                width: thumb.width, height: thumb.height, service: service, auth: auth)])),
            ("partOf", .array([reference(origin + URLPath.collection(LibraryKey.folder(of: image.id)), type: "Collection",
                                         label: folderLabel(LibraryKey.folder(of: image.id)))])),
            ("items", .array([.object([
                ("id", .string(canvas)),
                ("type", "Canvas"),
                ("label", label(fileName)),
                ("width", .int(g.width)),
                ("height", .int(g.height)),
            ] + physical + [
                ("items", .array([.object([
                    ("id", .string(canvas + "/page/1")),
                    ("type", "AnnotationPage"),
                    ("items", .array([.object([
                        ("id", .string(canvas + "/page/1/painting")),
                        ("type", "Annotation"),
                        ("motivation", "painting"),
                        ("body", imageResource(service + "/full/max/0/default.jpg", width: g.width, height: g.height, service: service, auth: auth)),
                        ("target", .string(canvas)),
                    ])])),
                ])])),
            ])])),
        ])
        return .response(respond(document, context))
    }

    /// A folder's sub-folders (as Collections) and images (as Manifests), in library order. Presentation 3 has no
    /// paging, so a folder is one document however many images it holds; its items need no image headers.
    func collection(_ context: RequestContext) throws -> HandlerOutcome {
        let folder = context.captures["path"] ?? ""
        let access = context.access
        guard let first = library.page(folder: folder, limit: ImageAPIHandler.maxLimit), access?.sees(folder: folder) ?? true else {
            throw APIError.notFound("no folder '\(folder)'")
        }
        var images = first.images
        var next = first.next
        while let after = next, let page = library.page(folder: folder, after: after, limit: ImageAPIHandler.maxLimit) {
            images += page.images
            next = page.next
        }
        let origin = context.origin
        var members: [(String, JSONValue)] = [
            ("@context", .string(Self.context)),
            ("id", .string(origin + URLPath.collection(folder))),
            ("type", "Collection"),
            ("label", label(folderLabel(folder))),
        ]
        if !folder.isEmpty {
            let parent = LibraryKey.folder(of: folder)
            members.append(("partOf", .array([reference(origin + URLPath.collection(parent), type: "Collection", label: folderLabel(parent))])))
        }
        if let access { images = images.filter { access.decision(for: $0.id) != .hidden } }
        let items = first.folders.filter { access?.sees(folder: $0.path) ?? true }.map { reference(origin + URLPath.collection($0.path), type: "Collection", label: folderLabel($0.path)) }
            + images.map { image in
                // Its title (where titles are names) only to those who may see it: a title is what the file says.
                let shown = access?.decision(for: image.id)?.showsPixels ?? true
                return reference(origin + URLPath.manifest(image.id), type: "Manifest", label: shown ? library.shownName(image) : image.name)
            }
        members.append(("items", .array(items)))
        return .response(respond(.object(members), context))
    }

    /// JSON-LD with the Presentation profile when asked for, else plain JSON; tagged for polling.
    private func respond(_ document: JSONValue, _ context: RequestContext) -> HTTPResponse {
        HTTPResponse.json(document).linkedData(profile: Self.context, for: context.request).tagged().conditional(on: context.request)
    }

    private func imageResource(_ id: String, width: Int, height: Int, service: String, auth: [(String, JSONValue)]) -> JSONValue {
        .object([
            ("id", .string(id)),
            ("type", "Image"),
            ("format", "image/jpeg"),
            ("width", .int(width)),
            ("height", .int(height)),
            ("service", .array([.object([("id", .string(service)), ("type", "ImageService3"), ("profile", "level2")] + auth)])),
        ] + auth)
    }

    private func reference(_ id: String, type: String, label text: String) -> JSONValue {
        .object([("id", .string(id)), ("type", .string(type)), ("label", label(text))])
    }

    /// A language map with no language: file and folder names are not in any one language.
    private func label(_ text: String) -> JSONValue { ManifestMetadata.text(text) }

    /// The folder's name as written on disk ("All images" for the top).
    private func folderLabel(_ folder: String) -> String {
        folder.isEmpty ? "All images" : library.folderName(folder) ?? String(folder.split(separator: "/").last ?? "")
    }
}
