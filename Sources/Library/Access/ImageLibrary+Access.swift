import POSIXSupport

/// The library's side of access control: which rule covers an image or a folder, and what a listing may count.
/// A rule is found by the folder's id path and by its names on disk; an image reached through a symbolic link
/// also by where its file really is, under any served root; the strictest of them applies.
extension ImageLibrary {
    /// Records the real paths of the served folders, by root index, so linked files are placed.
    package func setRoots(_ paths: [Int: String]) {
        rules.roots = paths.compactMapValues { Posix.realPath($0) }
    }

    /// Whether there is an image `id`.
    package func hasImage(_ id: String) -> Bool {
        stateMember(id) != nil
    }

    /// Image `id`'s rule under `policy` (whose generation is `generation`), or nil when there is no such image.
    /// It may resolve the file's real path (a system call) the first time; `cachedRule` never does.
    package func rule(of id: String, in policy: AccessPolicy, generation: Int) -> FolderRule? {
        guard let member = stateMember(id) else { return nil }
        if let kept = rules.kept(id, path: member.path, generation: generation) { return kept }
        var rule = Self.pathRule(of: member, in: policy)
        if !policy.isEmpty, let real = Self.realFolder(of: member.path, roots: rules.roots, root: member.key.root) {
            var linked = policy.rule(forFolder: real)
            if linked != rule, AccessPolicy.key(real) != AccessPolicy.key(Self.folderNames(id: id, path: member.path).joined(separator: "/")) {
                linked.shareable = false
            }
            rule = rule.strictest(linked)
        }
        rules.keep(rule, for: id, path: member.path, generation: generation)
        return rule
    }

    /// Image `id`'s rule if already known for `generation`: `.some(nil)`… never; nil when unknown or no image.
    package func cachedRule(of id: String, generation: Int) -> FolderRule? {
        guard let member = stateMember(id) else { return nil }
        return rules.kept(id, path: member.path, generation: generation)
    }

    /// The rule by the image's folder: its id path and its names on disk.
    static func pathRule(of member: Catalogue.Member, in policy: AccessPolicy) -> FolderRule {
        guard !policy.isEmpty else { return .open }
        let byID = policy.rule(forFolder: LibraryKey.folder(of: member.key.id))
        let names = folderNames(id: member.key.id, path: member.path).joined(separator: "/")
        return byID.strictest(policy.rule(forFolder: names))
    }

    /// Where the file at `path` really is (symbolic links resolved), as a folder path under a served root; nil
    /// outside every root.
    static func realFolder(of path: String, roots: [Int: String], root: Int) -> String? {
        guard let real = Posix.realPath(path) else { return nil }
        for top in roots.values.sorted() where real.hasPrefix(top + "/") {
            let relative = real.dropFirst(top.count + 1)
            return relative.lastIndex(of: "/").map { String(relative[..<$0]) } ?? ""
        }
        return nil
    }

    /// Folder `path`'s rule (by its id path and its names on disk).
    package func folderRule(_ path: String, in policy: AccessPolicy) -> FolderRule {
        guard !policy.isEmpty else { return .open }
        return policy.rule(forFolder: path).strictest(policy.rule(forFolder: diskPath(of: path)))
    }

    /// Folder `path` (an id path) by its names on disk.
    func diskPath(of path: String) -> String {
        catalogue.withLock { state -> String in
            var parts: [String] = []
            var folder = path
            while !folder.isEmpty {
                parts.append(state.folderName(folder) ?? PathText.lastComponent(of: folder))
                folder = LibraryKey.folder(of: folder)
            }
            return parts.reversed().joined(separator: "/")
        }
    }

    /// Images in folder `path` and below whose rule `counts` accepts, each image's own rule asked (a file a link
    /// brought here from a hidden folder is not counted where it appears). Resolves real paths the first time:
    /// off the event loop.
    package func visibleCount(_ path: String, in policy: AccessPolicy, generation: Int, counts: (String, FolderRule) -> Bool) -> Int {
        guard !policy.isEmpty else { return catalogue.withLock { $0.folders[path]?.count ?? 0 } }
        var total = 0
        var pending = [path]
        while let folder = pending.popLast() {
            let (images, children) = catalogue.withLock { state -> ([String], [String]) in
                guard let node = state.folders[folder] else { return ([], []) }
                return (node.images.map(\.id), Array(node.children))
            }
            for id in images {
                if let rule = rule(of: id, in: policy, generation: generation), counts(id, rule) { total += 1 }
            }
            pending += children
        }
        return total
    }
}
