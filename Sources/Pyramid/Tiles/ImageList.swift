import ImageCodecs
import POSIXSupport

/// A fixed set of images, in the order given: a directory for programs that embed the pyramid without a library
/// (the `first-view` command, tests).
public final class ImageList: ImageDirectory {
    private let images: [PyramidImage]
    private let failures = Locked<[String: ImageSourceError]>([:])

    public init(_ images: [PyramidImage]) {
        var seen: Set<String> = []
        self.images = images.filter { seen.insert($0.id).inserted }
    }

    public func image(_ id: String) -> PyramidImage? { images.first { $0.id == id } }
    public var count: Int { images.count }
    public var firstID: String? { images.first?.id }
    public var generation: Int { 0 }
    public var brokenCount: Int { failures.withLock { $0.count } }
    public func recordFailure(_ id: String, _ error: ImageSourceError) { failures.withLock { $0[id] = error } }
    public func attach(_ changes: any ImageChanges) { images.forEach(changes.imageMade) }
}
