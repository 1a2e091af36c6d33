import POSIXSupport
import ImageCodecs

/// What listings say of images and folders besides their ids: names as written on disk (ids keep only ASCII),
/// and which files are broken and why.
extension ImageLibrary {
    /// The name of folder `path` as written on disk ("" for the top), or nil when there is no such folder.
    package func folderName(_ path: String) -> String? {
        catalogue.withLock { $0.folderName(path) }
    }

    /// The file name of image `id` without its extension, as written on disk.
    package func name(of id: String) -> String? {
        catalogue.withLock { state in state.members[id].map { state.entry($0).name } }
    }

    /// The name `entry` is shown by to those who may see it: its own title where titles are names and it has one
    /// (as last indexed), else its file name (`Entry.name`). Those who may not see it get `Entry.name`: a title
    /// is what the file says.
    package func shownName(_ entry: Entry) -> String {
        search.title(ofPath: entry.path) ?? entry.name
    }

    /// What one pixel of image `id` measures, in millimetres, as its EXIF says, once the index has read the file.
    package func millimetresPerPixel(of id: String) -> Double? {
        guard let path = catalogue.withLock({ state in state.members[id]?.path }) else { return nil }
        return search.millimetresPerPixel(ofPath: path)
    }

    /// `shownName` of image `id`, or nil when there is no such image.
    package func shownName(of id: String) -> String? {
        guard let entry = catalogue.withLock({ state in state.members[id].map { state.entry($0) } }) else { return nil }
        return shownName(entry)
    }

    /// Records the raws and sidecars of listed images (`CameraCard`): an empty entry drops what was known.
    package func record(companions: [String: CameraCard.Companions]) {
        guard !companions.isEmpty else { return }
        companionFiles.withLock { known in
            for (path, with) in companions {
                if with.isEmpty { known.removeValue(forKey: path) } else { known[path] = with }
            }
        }
    }

    /// The raw and sidecar of image `id` (by path), if it has either.
    package func companions(of id: String) -> CameraCard.Companions? {
        guard let path = stateMember(id)?.path else { return nil }
        return companions(ofPath: path)
    }

    /// The raw and sidecar of the image file at `path`, if it has either.
    package func companions(ofPath path: String) -> CameraCard.Companions? {
        companionFiles.withLock { $0[path] }
    }

    /// What image `id`'s file says (`embedded`), with its XMP sidecar's fields first when it has one that reads.
    package func metadata(of id: String, embedded: PhotoMetadata) -> PhotoMetadata {
        guard let sidecar = companions(of: id)?.sidecar,
              let read = try? MetadataReader.readSidecar(path: sidecar, files: options.files) else { return embedded }
        return MetadataReader.overriding(embedded, with: read)
    }

    /// The file name of image `id` with its extension, as written on disk (what the info panel shows).
    package func fileName(of id: String) -> String? {
        catalogue.withLock { state in state.members[id].map { PathText.lastComponent(of: $0.path) } }
    }

    /// The last path component of `path` without its extension; the id's last component for images without a file.
    /// What listings call an image and IIIF labels it.
    package static func displayName(ofFile path: String, id: String, withExtension: Bool = false) -> String {
        let file = PathText.lastComponent(of: path)
        guard !file.isEmpty else { return PathText.lastComponent(of: id) }
        if withExtension { return file }
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    /// The names on disk of the folders of image `id` (the file at `path`), outermost first: the path's components
    /// that the id's folder components were made from (one per id component; `ImageNaming` maps names to ids one
    /// to one).
    static func folderNames(id: String, path: String) -> [Substring] {
        let idParts = id.split(separator: "/", omittingEmptySubsequences: false)
        let pathParts = path.split(separator: "/")
        guard idParts.count > 1, pathParts.count >= idParts.count else { return [] }
        return Array(pathParts.suffix(idParts.count).dropLast())
    }

    /// Records that image `id`'s file could not be read or decoded: listings show it as broken until the file
    /// changes.
    public func recordFailure(_ id: String, _ error: ImageSourceError) {
        guard let member = stateMember(id), !error.isTransient else { return }
        failures.record(id, path: member.path, error, stamp: options.files.stamp(member.path))
    }

    /// Calls `hook` with the id and error of each image found broken (once per version of its file): the server
    /// logs them, so a file left out of the pictures is named somewhere.
    package func onBroken(_ hook: @escaping @Sendable (String, ImageSourceError) -> Void) {
        failures.onRecord(hook)
    }

    /// Why image `id` is broken: the failure recorded for the file as it is now, or nil.
    package func failure(of id: String) -> ImageSourceError? {
        guard let member = stateMember(id) else { return nil }
        return failures.failure(of: id, path: member.path, stamp: options.files.stamp(member.path))
    }

    /// How many images are known to be broken now (their last decode failed and the file has not changed).
    public var brokenCount: Int {
        failures.ids.filter { failure(of: $0) != nil }.count
    }
}
