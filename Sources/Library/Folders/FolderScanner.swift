#if canImport(Glibc)
import Glibc
#endif

/// Lists image files in folders, recursively, naming them by `ImageNaming`. Symbolic links are followed, but a
/// folder already seen (by device and inode) is not entered again, so a link to an ancestor cannot loop and a
/// folder reached twice is listed once, under the path met first.
package enum FolderScanner {
    /// A folder's identity on disk.
    package struct FolderIdentity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// A folder met by a walk: its id prefix ("" at the top), path and identity.
    package struct FolderEntry: Sendable {
        package let id: String
        package let path: String
        package let identity: FolderIdentity
    }

    /// What one folder holds directly.
    package struct Listing: Sendable {
        /// Image id → file path.
        package var files: [String: String] = [:]
        /// Sub-folders: id prefix → path.
        package var folders: [(id: String, path: String)] = []
        /// Listed image path → its raw and sidecar paths (`CameraCard`), for every listed image (empty: none).
        package var companions: [String: CameraCard.Companions] = [:]
    }

    /// Folders deeper than this are not entered (a guard against pathological trees, not a real limit).
    static let maxDepth = 64

    /// The identity of the folder at `path` (symbolic links followed), or nil when it is not a readable folder.
    package static func identity(of path: String) -> FolderIdentity? {
        var sb = stat()
        guard stat(path, &sb) == 0, (sb.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return FolderIdentity(device: UInt64(sb.st_dev), inode: UInt64(sb.st_ino))
    }

    /// The image files and sub-folders directly in `directory`, ids prefixed by `prefix` (a folder id, or "").
    /// `skip` names files to leave out (being written). Nil when the folder cannot be read.
    package static func list(_ directory: String, prefix: String, skip: (String) -> Bool = { _ in false }) -> Listing? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var files: [String] = [], folders: [String] = [], sidecars: [String] = []
        while let entry = readdir(dir) {
            let raw = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let name = String(validating: raw, as: UTF8.self), !name.hasPrefix(".") else { continue }
            let path = join(directory, name)
            var type = Int32(entry.pointee.d_type)
            // A link with an image's name is taken as a file unseen (no `stat`: archives of links list fast); a
            // dangling one is an image that cannot be opened, left out of listings like any broken file.
            if type == DT_LNK, ImageNaming.isImage(name) {
                type = Int32(DT_REG)
            } else if type == DT_LNK || type == DT_UNKNOWN {
                var sb = stat()
                guard stat(path, &sb) == 0 else { continue }    // a dangling link
                type = (sb.st_mode & S_IFMT) == S_IFDIR ? Int32(DT_DIR) : (sb.st_mode & S_IFMT) == S_IFREG ? Int32(DT_REG) : 0
            }
            if type == DT_DIR {
                folders.append(name)
            } else if type == DT_REG, ImageNaming.isImage(name), !skip(path) {
                files.append(name)
            } else if type == DT_REG, CameraCard.isSidecar(name), !skip(path) {
                sidecars.append(name)
            }
        }
        var listing = Listing()
        let prefixed = { (id: String) in prefix.isEmpty ? id : prefix + "/" + id }
        let (shown, companions) = CameraCard.group(images: files, sidecars: sidecars)
        for (name, id) in ImageNaming.ids(forFiles: shown) {
            let path = join(directory, name)
            listing.files[prefixed(id)] = path
            let with = companions[name]
            listing.companions[path] = CameraCard.Companions(raw: with?.raw.map { join(directory, $0) }, sidecar: with?.sidecar.map { join(directory, $0) })
        }
        listing.folders = ImageNaming.ids(forFolders: folders).map { (id: prefixed($0.value), path: join(directory, $0.key)) }
            .sorted { $0.id < $1.id }
        return listing
    }

    /// Every image below `directory` (id → path) and every folder entered, the top one included. Folders whose
    /// identity is in `visited` are not entered; those entered are added to it.
    package static func walk(_ directory: String, prefix: String, visited: inout Set<FolderIdentity>,
                            skip: (String) -> Bool = { _ in false })
        -> (files: [String: String], folders: [FolderEntry], companions: [String: CameraCard.Companions]) {
        var files: [(String, String)] = [], folders: [FolderEntry] = []
        var companions: [String: CameraCard.Companions] = [:]
        var stack: [(id: String, path: String, depth: Int)] = [(prefix, directory, 0)]
        while let (id, path, depth) = stack.popLast() {
            guard depth <= maxDepth, let identity = identity(of: path), visited.insert(identity).inserted,
                  let listing = list(path, prefix: id, skip: skip) else { continue }
            folders.append(FolderEntry(id: id, path: path, identity: identity))
            files += listing.files.lazy.map { ($0.key, $0.value) }
            companions.merge(listing.companions) { first, _ in first }
            // Reversed so the stack visits sub-folders in name order: the first path to a shared folder wins.
            stack += listing.folders.reversed().map { ($0.id, $0.path, depth + 1) }
        }
        return (Dictionary(files, uniquingKeysWith: { first, _ in first }), folders, companions)
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
