/// What decides, for the fast tile path, whether a cached tile may go to anyone who asks (access control, which
/// the pyramid does not know). `CachedTileReader` remembers each image's answer beside `generation` and asks
/// again when it moves; an image it cannot answer for at once (nil) is left to the routes.
package protocol TileGate: AnyObject, Sendable {
    /// Moves whenever an answer of `isOpen` may have changed.
    var generation: Int { get }
    /// Whether every tile of `image` is for everyone; nil when that is not known without reading a file.
    func isOpen(_ image: PyramidImage) -> Bool?
}
