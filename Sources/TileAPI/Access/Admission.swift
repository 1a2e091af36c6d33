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
        var context = context
        context.subject = admitted(id, image, tiles, view, decision: view?.decision ?? .full, originals: view?.originals ?? true)
        return context
    }

    /// Image `id` admitted for the identity `view` decided on, outside an image route (the top page's first
    /// picture); nil when it is not there or the identity may see none of its pixels. Resolves the rule: off the
    /// event loop.
    static func image(_ id: String, _ view: AccessView?, tiles: TileService) -> AdmittedImage? {
        guard let image = tiles.image(id) else { return nil }
        guard let view else { return admitted(id, image, tiles, nil, decision: .full, originals: true) }
        guard let (decision, downloads) = view.access(to: id), decision.showsPixels else { return nil }
        return admitted(id, image, tiles, view, decision: decision, originals: downloads)
    }

    /// Image `id` as admitted under `decision` (which shows pixels), refused past its limit as `view` refuses.
    private static func admitted(_ id: String, _ image: PyramidImage, _ tiles: TileService, _ view: AccessView?,
                                 decision: AccessDecision, originals: Bool) -> AdmittedImage {
        let limit = if case let .limited(maxSize) = decision { OutputLimit(longSide: maxSize) } else { OutputLimit.none }
        return AdmittedImage(id: id, image: image, tiles: tiles, limit: limit, originals: originals) {
            view?.refusal("image '\(id)' at this size") ?? .forbidden("image '\(id)' is not shown at this size")
        }
    }
}
