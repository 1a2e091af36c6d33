import POSIXSupport
import Pyramid

/// The library's images and folders: members by id, the order listings page through, and the folder tree with
/// its counts and names on disk, under one lock. Sorted by `LibraryKey` with a folder index, so a page of 1,000
/// out of 100,000 images, or one folder's images, costs a binary search. The library's other parts (the rules,
/// the failures, the rename map, the search index) keep their own state and name images by id.
final class Catalogue: Sendable {
    /// One image of the library. Its `PyramidImage` is made on first use (a tile, a view, a manifest); a listing
    /// needs only `summary`, a few dozen bytes, so 100,000 listed images cost little memory.
    struct Member {
        let key: LibraryKey
        /// The id the scanner gave it; differs from `key.id` only when another path had taken that id.
        let scanned: String
        let path: String
        var image: PyramidImage?
        var summary: ImageSummary?
        /// When `summary` was last compared with the file (monotonic nanoseconds).
        var checked = Int64.min
        /// Its folder and its file's name without extension, as ids are made from it (case and marks aside): what
        /// two images of one folder that would show one name share (`Contents.stems`). Worked out once.
        let nameKey: String

        init(key: LibraryKey, scanned: String, path: String, image: PyramidImage? = nil) {
            self.key = key
            self.scanned = scanned
            self.path = path
            self.image = image
            nameKey = LibraryKey.folder(of: key.id) + "/" + ImageNaming.stem(of: path)
        }
    }

    struct Folder {
        /// Images directly in the folder, sorted.
        var images: [LibraryKey] = []
        /// Paths of its direct sub-folders.
        var children: Set<String> = []
        /// Images in the folder and below.
        var count = 0
        /// Its name as written on disk, from the path of an image below it.
        var name: String?
    }

    /// What the lock guards.
    struct Contents {
        var members: [String: Member] = [:]
        var order: [LibraryKey] = []
        var folders: [String: Folder] = ["": Folder()]
        /// The tile service serving these images, held weakly (it holds the library): told of each image made and
        /// each removed under this lock, so it never misses one.
        weak var changes: (any ImageChanges)?
        /// How many images of each folder share a name without extension (`Member.nameKey`): where two do, each shows
        /// its extension.
        var stems: [String: Int] = [:]
    }

    private let contents = Locked(Contents())

    /// Runs `body` with the contents, holding the lock.
    func withLock<Result>(_ body: (inout Contents) -> Result) -> Result {
        contents.withLock(body)
    }

    func member(_ id: String) -> Member? { contents.withLock { $0.members[id] } }

    /// Every image's entry, in order.
    func entries() -> [ImageLibrary.Entry] {
        contents.withLock { state in state.order.compactMap { key in state.members[key.id].map { state.entry($0) } } }
    }

    /// Index of the first key after `key` in the sorted `keys`.
    static func upperBound(_ keys: [LibraryKey], _ key: LibraryKey) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if key < keys[mid] { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

extension Catalogue.Contents {
    /// `member` as listings see it.
    func entry(_ member: Catalogue.Member) -> ImageLibrary.Entry {
        ImageLibrary.Entry(key: member.key, path: member.path, sharesName: (stems[member.nameKey] ?? 0) > 1)
    }

    mutating func insert(_ member: Catalogue.Member) {
        insert([member])
    }

    /// Adds members: one by one into the sorted lists when few, else appended and sorted once (a first scan of
    /// 100,000 files must not cost 100,000 array insertions).
    mutating func insert(_ added: [Catalogue.Member]) {
        let bulk = added.count > 64
        var unsorted: Set<String> = []
        for member in added {
            members[member.key.id] = member
            stems[member.nameKey, default: 0] += 1
            var folder = LibraryKey.folder(of: member.key.id)
            var names = ImageLibrary.folderNames(id: member.key.id, path: member.path)
            if bulk {
                order.append(member.key)
                folders[folder, default: Catalogue.Folder()].images.append(member.key)
                unsorted.insert(folder)
            } else {
                order.insert(member.key, at: Catalogue.upperBound(order, member.key))
                var node = folders[folder, default: Catalogue.Folder()]
                node.images.insert(member.key, at: Catalogue.upperBound(node.images, member.key))
                folders[folder] = node
            }
            while true {
                folders[folder, default: Catalogue.Folder()].count += 1
                if let name = names.popLast(), folders[folder]!.name == nil { folders[folder]!.name = String(name) }
                if folder.isEmpty { break }
                let parent = LibraryKey.folder(of: folder)
                folders[parent, default: Catalogue.Folder()].children.insert(folder)
                folder = parent
            }
        }
        if bulk {
            order.sort()
            for folder in unsorted { folders[folder]!.images.sort() }
        }
    }

    /// Folder `path`'s name as written on disk ("" for the top; its id's last component if no image below it gave
    /// one), or nil when there is no such folder.
    func folderName(_ path: String) -> String? {
        if path.isEmpty { return "" }
        return folders[path].map { $0.name ?? PathText.lastComponent(of: path) }
    }

    /// The first image (in order) of folder `path`, else of its first sub-folder that has one.
    func firstImage(below path: String) -> String? {
        guard let node = folders[path] else { return nil }
        if let first = node.images.first { return first.id }
        for child in node.children.sorted(by: { $0 < $1 }) {
            if let found = firstImage(below: child) { return found }
        }
        return nil
    }

    mutating func remove(_ member: Catalogue.Member) {
        members[member.key.id] = nil
        let stem = member.nameKey
        if let n = stems[stem], n > 1 { stems[stem] = n - 1 } else { stems[stem] = nil }
        let at = Catalogue.upperBound(order, member.key) - 1
        if at >= 0, order[at] == member.key { order.remove(at: at) }
        var folder = LibraryKey.folder(of: member.key.id)
        if let i = folders[folder]?.images.firstIndex(of: member.key) { folders[folder]!.images.remove(at: i) }
        while true {
            folders[folder]?.count -= 1
            if folder.isEmpty { break }
            let parent = LibraryKey.folder(of: folder)
            if folders[folder]?.count ?? 0 <= 0 {
                folders[folder] = nil
                folders[parent]?.children.remove(folder)
            }
            folder = parent
        }
    }
}
