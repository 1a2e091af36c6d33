import POSIXSupport
import ImageCodecs

/// What listings say of images and folders besides their ids: names as written on disk (ids keep only ASCII),
/// and which files are broken and why.
extension ImageLibrary {
    /// The name of folder `path` as written on disk ("" for the top), or nil when there is no such folder.
    package func folderName(_ path: String) -> String? {
        state.withLock { $0.folderName(path) }
    }

    /// The file name of image `id` without its extension, as written on disk.
    package func name(of id: String) -> String? {
        stateMember(id).map { Self.displayName(ofFile: $0.path, id: id) }
    }

    /// The last path component of `path` without its extension; the id's last component for images without a file.
    /// What listings call an image and IIIF labels it.
    package static func displayName(ofFile path: String, id: String) -> String {
        let file = PathText.lastComponent(of: path)
        guard !file.isEmpty else { return PathText.lastComponent(of: id) }
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    /// The names on disk of the folders of `member`'s id, outermost first: the path's components that the id's
    /// folder components were made from (one per id component; `ImageNaming` maps names to ids one to one).
    static func folderNames(of member: Member) -> [Substring] {
        let idParts = member.key.id.split(separator: "/", omittingEmptySubsequences: false)
        let pathParts = member.path.split(separator: "/")
        guard idParts.count > 1, pathParts.count >= idParts.count else { return [] }
        return Array(pathParts.suffix(idParts.count).dropLast())
    }

    /// Records that image `id`'s file could not be read or decoded: listings show it as broken until the file
    /// changes.
    public func recordFailure(_ id: String, _ error: ImageSourceError) {
        let hook = state.withLock { state -> (@Sendable (String, ImageSourceError) -> Void)? in
            guard let member = state.members[id], !error.isTransient else { return nil }
            let stamp = options.files.stamp(member.path)
            if let known = member.failure, known.stamp == stamp { return nil }
            state.members[id]!.failure = (error, stamp)
            return state.broken
        }
        hook?(id, error)
    }

    /// Calls `hook` with the id and error of each image found broken (once per version of its file): the server
    /// logs them, so a file left out of the pictures is named somewhere.
    package func onBroken(_ hook: @escaping @Sendable (String, ImageSourceError) -> Void) {
        state.withLock { $0.broken = hook }
    }

    /// Why image `id` is broken: the failure recorded for the file as it is now, or nil.
    package func failure(of id: String) -> ImageSourceError? {
        guard let member = stateMember(id), let failure = member.failure else { return nil }
        return options.files.stamp(member.path) == failure.stamp ? failure.error : nil
    }

    /// How many images are known to be broken now (their last decode failed and the file has not changed).
    public var brokenCount: Int {
        let ids = state.withLock { $0.members.values.filter { $0.failure != nil }.map(\.key.id) }
        return ids.filter { failure(of: $0) != nil }.count
    }
}
