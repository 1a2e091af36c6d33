import ObjectStorage

/// The images below an `s3://bucket/prefix` root, named as `FolderScanner` names a local folder's: keys split on
/// `/` into folders, each folder's image files and sub-folders named by `ImageNaming`, hidden names (a leading
/// `.`) and keys that are not images left out. A listing is one paged ListObjectsV2 of the whole prefix.
enum ObjectTree {
    /// Image id → object path (`s3://bucket/key`), ids prefixed by nothing (the root's own images are at the top).
    static func files(of entries: [ObjectListing.Entry], in location: S3Location) -> [String: String] {
        let base = location.listPrefix
        // Folder (relative path, "" at the top) → its files and sub-folders, by name.
        var files: [String: [String]] = [:]
        var folders: [String: Set<String>] = [:]
        for entry in entries where entry.key.hasPrefix(base) {
            let parts = entry.key.dropFirst(base.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard let name = parts.last, !name.isEmpty, ImageNaming.isImage(name),
                  !parts.dropLast().contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else { continue }
            var folder = ""
            for part in parts.dropLast() {
                folders[folder, default: []].insert(part)
                folder = folder.isEmpty ? part : folder + "/" + part
            }
            files[folder, default: []].append(name)
        }
        var out: [String: String] = [:]
        var stack: [(relative: String, id: String)] = [("", "")]
        while let (relative, id) = stack.popLast() {
            let prefixed = { (component: String) in id.isEmpty ? component : id + "/" + component }
            let keyOf = { (name: String) in base + (relative.isEmpty ? name : relative + "/" + name) }
            for (name, component) in ImageNaming.ids(forFiles: files[relative] ?? []) {
                let imageID = prefixed(component)
                if out[imageID] == nil { out[imageID] = location.path(ofKey: keyOf(name)) }
            }
            for (name, component) in ImageNaming.ids(forFolders: Array(folders[relative] ?? [])) {
                stack.append((relative.isEmpty ? name : relative + "/" + name, prefixed(component)))
            }
        }
        return out
    }
}
