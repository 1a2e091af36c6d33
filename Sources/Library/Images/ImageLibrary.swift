import ImageCodecs
import POSIXSupport
import Pyramid
import Synchronization

/// The images being served, live: what the folder scanner and watcher find is applied here, one folder (or one
/// command-line path) at a time, and every protocol looks images up here. Kept sorted by `LibraryKey` with a
/// folder index, so a page of 1,000 out of 100,000 images, or one folder's images, costs a binary search.
///
/// Images are created lazily (`PyramidImage(lazilyAt:)`): nothing is read at start. The tile service attached
/// (`ImageDirectory.attach`) is told of each image made and each removed, so its cached tiles and decode passes
/// are released; an image whose file the scanner saw again
/// is told to `recheck()`, so a replaced file gets its new version on the next request.
public final class ImageLibrary: ImageDirectory {
    /// What one `apply` covers: every image found under one command-line path, the images directly in one of
    /// its folders, or everything below one of its folders.
    public enum Scope: Sendable, Equatable {
        case all
        case folder(String)
        case subtree(String)

        func contains(_ id: String) -> Bool {
            switch self {
            case .all: true
            case let .folder(folder): LibraryKey.folder(of: id) == folder
            case let .subtree(folder): folder.isEmpty || id.hasPrefix(folder + "/")
            }
        }
    }

    /// What an `apply` changed, by id.
    public struct Change: Sendable, Equatable {
        public var added: [String] = []
        public var removed: [String] = []
        /// Same id, another file (the naming rule moved it, or its path changed).
        public var replaced: [String] = []
        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && replaced.isEmpty }
    }

    /// An image as listings see it: no file opened, no pyramid object made.
    package struct Entry: Sendable {
        /// Where it stands in library order (what a listing's `next` cursor names).
        package let key: LibraryKey
        package let path: String
        /// Another image of its folder has the same name without extension (`IMG_0001.jpg` beside `IMG_0001.png`).
        package let sharesName: Bool
        package var id: String { key.id }
        /// The file's name as written on disk, without its extension (`Café de Flore (1)`): what people call it;
        /// with its extension where another of its folder would show the same.
        package var name: String { ImageLibrary.displayName(ofFile: path, id: id, withExtension: sharesName) }
    }

    /// A sub-folder as a folder listing shows it.
    package struct FolderSummary: Sendable {
        package let path: String
        /// Its name as written on disk (`Île de Ré — summer`); ids keep only ASCII.
        package let name: String
        /// Images in it and below.
        package let count: Int
        /// Its first image (its own, else its first sub-folder's): the folder's cover.
        package let cover: String?
    }

    /// One page of a listing.
    package struct Page: Sendable {
        package let images: [Entry]
        /// Where the next page starts; nil on the last page.
        package let next: LibraryKey?
        /// The folder's sub-folders (for a folder listing only).
        package let folders: [FolderSummary]
    }

    /// The images and folders, in order.
    let catalogue = Catalogue()
    /// Each image's access rule, as last worked out (`rule(of:in:generation:)`).
    let rules = ImageRules()
    /// Which files could not be read or decoded.
    let failures = ImageFailures()
    /// Listed image path → its raw and sidecar (`CameraCard`), as the folder was last listed.
    let companionFiles = Locked<[String: CameraCard.Companions]>([:])
    /// What the files say, for finding and ordering them; indexed once `search.start(_:)` is called.
    package let search: SearchIndex
    /// Ids of the earlier naming rule to today's, and the library generation they were made at (`renamedID`, `renamedFolder`).
    let renameCache = Locked<(generation: Int, map: RenameMap)>((-1, RenameMap([])))
    /// Bumped (after the change is in place) by every change that adds, removes or replaces an image.
    private let changes = Atomic<Int>(0)
    let options: TileOptions
    /// Shown while nothing else is (the built-in landscape when every folder is empty).
    private let fallback: PyramidImage?

    /// `titlesAsNames`: a photo's own title is the name it is shown and sorted by (`--names title`), else its file name.
    public init(options: TileOptions, fallback: PyramidImage? = nil, titlesAsNames: Bool = true) {
        self.options = options
        self.fallback = fallback
        search = SearchIndex(titlesAsNames: titlesAsNames)
        if let fallback { catalogue.withLock { $0.insert(Self.member(fallback, root: Int.max)) } }
    }

    /// A fixed set of images, in the order given (tests, and the `TileService(images:)` convenience).
    public convenience init(images: [PyramidImage], options: TileOptions) {
        self.init(options: options)
        catalogue.withLock { state in
            for (root, image) in images.enumerated() where state.members[image.id] == nil {
                state.insert(Self.member(image, root: root))
            }
        }
    }

    private static func member(_ image: PyramidImage, root: Int) -> Catalogue.Member {
        Catalogue.Member(key: LibraryKey(root: root, id: image.id), scanned: image.id, path: image.path, image: image)
    }

    public func attach(_ changes: any ImageChanges) {
        let existing = catalogue.withLock { state in
            state.changes = changes
            return state.members.values.compactMap(\.image)
        }
        existing.forEach(changes.imageMade)
    }

    /// The image `id`, its pyramid object made (not its file read) on first use.
    public func image(_ id: String) -> PyramidImage? {
        catalogue.withLock { state in
            guard let member = state.members[id] else { return nil }
            if let image = member.image { return image }
            let image = PyramidImage(id: id, lazilyAt: member.path, options: options)
            state.changes?.imageMade(image)
            state.members[id]!.image = image
            return image
        }
    }

    public var count: Int { catalogue.withLock { $0.members.count } }

    /// Bumped by every change that adds, removes or replaces an image; read without a lock, so a lookup kept
    /// beside the number it was made at (the fast tile path's) knows at once when to look again.
    public var generation: Int { changes.load(ordering: .acquiring) }

    /// The id of the first image in order: what `/tiles/{z}/{x}/{y}` serves.
    public var firstID: String? { catalogue.withLock { $0.order.first?.id } }

    /// Makes the images under `root` in `scope` exactly `files` (id → file path, as the scanner named them).
    /// New ids become lazy images, vanished ones are removed (and released), a changed path replaces the image,
    /// and every image still there is told to look at its file again.
    /// `recheck: false` leaves the images still there to their next due look (objects in object storage: the
    /// listing just gave every object's version, which that look compares; forcing it would send their next
    /// tiles through the worker pools, behind requests waiting on the store).
    @discardableResult
    public func apply(root: Int, scope: Scope, files: [String: String], recheck: Bool = true) -> Change {
        var change = Change()
        var gone: [PyramidImage] = [], seen: [PyramidImage] = []
        let service = catalogue.withLock { state -> (any ImageChanges)? in
            let existing = state.members.values.filter { $0.key.root == root && scope.contains($0.scanned) }
            var kept: Set<String> = []
            for member in existing {
                if let path = files[member.scanned], path == member.path {
                    kept.insert(member.scanned)
                    state.members[member.key.id]!.checked = Int64.min
                    if let image = member.image { seen.append(image) }
                } else {
                    state.remove(member)
                    if let image = member.image { gone.append(image) }
                    if files[member.scanned] != nil { change.replaced.append(member.key.id) } else { change.removed.append(member.key.id) }
                }
            }
            let fallbackKey = fallback.map { LibraryKey(root: Int.max, id: $0.id) }
            if let fallbackKey, !files.isEmpty, let shown = state.members[fallbackKey.id], shown.key == fallbackKey {
                state.remove(shown)
                gone.append(fallback!)
            }
            var adding: [Catalogue.Member] = []
            var taken: Set<String> = []
            adding.reserveCapacity(files.count - kept.count)
            for (scanned, path) in files where !kept.contains(scanned) {
                let id = ImageNaming.unique(scanned) { state.members[$0] != nil || taken.contains($0) }
                taken.insert(id)
                adding.append(Catalogue.Member(key: LibraryKey(root: root, id: id), scanned: scanned, path: path))
                if !change.replaced.contains(id) { change.added.append(id) }
            }
            state.insert(adding)
            if let fallback, state.members.isEmpty {
                state.insert(Self.member(fallback, root: Int.max))
            }
            return state.changes
        }
        if !change.isEmpty { changes.add(1, ordering: .releasing) }
        // Kept by id and path, so nothing of a file passes to another; dropped to keep them small.
        rules.forget(change.removed + change.replaced)
        failures.forget(change.removed + change.replaced)
        if recheck { seen.forEach { $0.recheck() } }
        search.nudge()
        if let service { gone.forEach(service.imageRemoved) }
        return change
    }

    func stateMember(_ id: String) -> Catalogue.Member? { catalogue.member(id) }

    /// Keeps `summary` for `id` if it is still the member at `path`.
    func record(_ summary: ImageSummary, for id: String, path: String, checked: Int64) {
        catalogue.withLock { state in
            guard state.members[id]?.path == path else { return }
            state.members[id]!.summary = summary
            state.members[id]!.checked = checked
        }
    }

    /// Up to `limit` images after `after` (from the start when nil): of the whole library, or of `folder` alone
    /// with its sub-folders. Nil when `folder` does not exist.
    package func page(folder: String? = nil, after: LibraryKey? = nil, limit: Int) -> Page? {
        catalogue.withLock { state in
            let keys: [LibraryKey]
            var folders: [FolderSummary] = []
            if let folder {
                guard let node = state.folders[folder] else { return nil }
                keys = node.images
                folders = node.children.sorted { $0 < $1 }.map { path in
                    FolderSummary(path: path, name: state.folderName(path) ?? PathText.lastComponent(of: path),
                                  count: state.folders[path]?.count ?? 0, cover: state.firstImage(below: path))
                }
            } else {
                keys = state.order
            }
            let start = after.map { Catalogue.upperBound(keys, $0) } ?? 0
            let end = min(keys.count, start + max(0, limit))
            let images = keys[start ..< end].compactMap { key in state.members[key.id].map { state.entry($0) } }
            return Page(images: images, next: end < keys.count && end > start ? keys[end - 1] : nil, folders: folders)
        }
    }
}
