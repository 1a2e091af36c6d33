import HTTPTransport

/// The route table as data, for what is built from it rather than written beside it: the e2e leak matrix
/// (`tileserver routes`) makes its requests from this, so a route added is tried by every identity without
/// anyone listing it.
extension Router {
    /// One JSON object a line: the route's name, its pattern, its access kind and, for an image route, the
    /// capture that names the image and how (`form`); the fallback last, with an empty pattern.
    var description: String {
        (routes + [fallback]).map { route in
            var members: [(String, JSONValue)] = [("name", .string(route.name)), ("pattern", .array(route.pattern.map { .string($0) }))]
            switch route.access {
            case .open: members.append(("access", "open"))
            case .metrics: members.append(("access", "metrics"))
            case .listing: members.append(("access", "listing"))
            case .defaultImage: members.append(("access", "default_image"))
            case let .image(capture, form):
                let formName = switch form {
                case .plain: "plain"
                case .versioned: "versioned"
                case .descriptor: "descriptor"
                case .deepZoomFiles: "deep_zoom_files"
                }
                members += [("access", "image"), ("capture", .string(capture)), ("form", .string(formName))]
            }
            return JSONValue.object(members).serialized
        }.joined(separator: "\n") + "\n"
    }
}

extension Application {
    /// `Router.description` of this server's routes.
    package var routeTable: String { router.description }
}
