import POSIXSupport

/// Where image paths are read from: local files, and `s3://` objects from `objects` when there is a store. A value
/// handed down from the executable to whatever opens images (`ImageOpener`, the tile service, the library), never
/// a process-wide setting.
public struct ImageFiles: Sendable, Hashable {
    package let objects: (any ObjectBytes)?
    /// What opening each master read, kept so that opening it again reads nothing of it (with a store of masters).
    package let structures: ObjectStructures?

    /// Local files only: an object path is an error that says object storage is not configured.
    public static let local = ImageFiles(objects: nil)

    package init(objects: (any ObjectBytes)?) {
        self.objects = objects
        structures = objects == nil ? nil : ObjectStructures()
    }

    /// The same store (or none).
    public static func == (a: ImageFiles, b: ImageFiles) -> Bool { a.objects === b.objects }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(objects.map { ObjectIdentifier($0) })
    }

    /// Whether `path` names an object (`s3://…`) rather than a local file.
    public static func isObject(_ path: String) -> Bool { path.hasPrefix("s3://") }

    /// Opens `path` for reading, failing with the image error users see.
    package func open(_ path: String) throws(ImageSourceError) -> ImageInput {
        try ImageInput.open(path, files: self)
    }

    /// Starts fetching the heads of the objects among `paths` together, in the background (`ImageInput.prefetchHead`):
    /// a reader going through them one by one then finds each on its way or there. Nothing for local files, nor
    /// for whole-slide images (read from local files only, their metadata never).
    package func prefetchHeads(_ paths: [String]) {
        for path in paths where Self.isObject(path) && !SourceFormat.isSlide(fileName: path) { (try? open(path))?.prefetchHead() }
    }

    /// What tells that the file at `path` changed, without reading it: one `stat(2)` of a local file; for an object,
    /// its size, time and tag as the store was last seen to have it, at no request. Nil when there is nothing there.
    package func stamp(_ path: String) -> FileStamp? {
        Self.isObject(path) ? objects?.stamp(of: path) : FileStamp.of(path)
    }
}
