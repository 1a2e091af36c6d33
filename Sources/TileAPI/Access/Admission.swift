import Library
import Pyramid
import TileGeometry

/// The one place an image route's image is found and handed to its handler, with access control or without:
/// after the identity's decision (`AccessControl.admit`) and before the handler parses anything, so an image
/// that is not there and one the identity may not know of get one answer, word for word, whatever the rest of
/// the URL holds.
enum Admission {
    /// The id `access` names in `context`: a capture in its form, or the library's first image.
    static func id(_ context: RequestContext, _ access: RouteAccess, library: ImageLibrary) -> String? {
        switch access {
        case let .image(capture, form): RouteAccess.id(context.capture(capture), form)
        case .defaultImage: library.firstID
        case .open, .metrics, .listing: nil
        }
    }

    /// The answer for an image that is not there, or hidden from the one asking: it names only what the request
    /// named (never the library's first image, which `/tiles/…` does not name).
    static func missing(_ context: RequestContext, _ access: RouteAccess) -> APIError {
        switch access {
        case let .image(capture, form): .notFound("no image with id '\(RouteAccess.id(context.capture(capture), form))'")
        case .defaultImage, .open, .metrics, .listing: .notFound("no images are being served")
        }
    }

    /// `context` with its route's image admitted (`RequestContext.admitted()`), carrying the limit access
    /// control decided; routes that name no image pass as they are.
    static func admit(_ context: RequestContext, _ access: RouteAccess, tiles: TileService, library: ImageLibrary) throws -> RequestContext {
        switch access {
        case .open, .metrics, .listing: return context
        case .image, .defaultImage: break
        }
        guard let id = id(context, access, library: library), let image = tiles.image(id) else { throw missing(context, access) }
        let view = context.access
        let limit: OutputLimit = if case let .limited(maxSize)? = view?.decision { OutputLimit(longSide: maxSize) } else { .none }
        var admitted = context
        admitted.subject = AdmittedImage(id: id, image: image, tiles: tiles, limit: limit, originals: view?.originals ?? true) {
            view?.refusal("image '\(id)' at this size") ?? .refused(signedIn: false, "image '\(id)' is not shown at this size")
        }
        return admitted
    }

    /// Image `id` admitted for the identity `view` decided on, outside an image route (the top page's first
    /// picture); nil when it is not there or the identity may see none of its pixels. Resolves the rule: off the
    /// event loop.
    static func image(_ id: String, _ view: AccessView?, tiles: TileService) -> AdmittedImage? {
        guard let image = tiles.image(id) else { return nil }
        var limit = OutputLimit.none
        if let view {
            switch view.decision(for: id) {
            case .full?: break
            case let .limited(maxSize)?: limit = OutputLimit(longSide: maxSize)
            case .refused?, .hidden?, nil: return nil
            }
        }
        return AdmittedImage(id: id, image: image, tiles: tiles, limit: limit, originals: view?.mayDownload(id) ?? true) {
            view?.refusal("image '\(id)' at this size") ?? .refused(signedIn: false, "image '\(id)' is not shown at this size")
        }
    }
}
