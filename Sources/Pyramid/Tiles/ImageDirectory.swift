import ImageCodecs

/// Where a tile service finds the images it serves, kept by someone else: the image library (which the pyramid
/// does not know), or `ImageList`. The service looks images up here and reports damaged files back; the keeper
/// tells the service of every image it makes and drops through `ImageChanges`, which the service is.
public protocol ImageDirectory: AnyObject, Sendable {
    /// The image `id`, its pyramid object made (not its file read) on first use; nil when there is none.
    func image(_ id: String) -> PyramidImage?
    /// The images held.
    var count: Int { get }
    /// The first image in order: what `/tiles/{z}/{x}/{y}` serves.
    var firstID: String? { get }
    /// Bumped by every change that adds, removes or replaces an image; read without a lock on every cached tile,
    /// so a lookup kept beside the number it was made at knows at once when to look again.
    var generation: Int { get }
    /// How many of them are known not to decode (their file unchanged since).
    var brokenCount: Int { get }
    /// `id`'s file did not decode: listings show it as broken until the file changes.
    func recordFailure(_ id: String, _ error: ImageSourceError)
    /// Called once, by the service serving these images, before they are served: `changes` is told of every image
    /// already made and, from then on, of each one made (before it is shared) and each one dropped. Held weakly.
    func attach(_ changes: any ImageChanges)
}

/// What a directory tells the tile service serving it.
public protocol ImageChanges: AnyObject, Sendable {
    /// A new image object, not yet shared: it gets the service's budgets and change handler.
    func imageMade(_ image: PyramidImage)
    /// An image that left the directory: its cached tiles, stored tiles and decode passes are released.
    func imageRemoved(_ image: PyramidImage)
}
