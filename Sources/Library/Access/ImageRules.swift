import POSIXSupport

/// The access rules worked out for images, each kept with the file it was worked out for and the policy
/// generation it holds under, and the served folders' real paths (symbolic links resolved) that place a linked
/// file. Working a rule out may resolve a real path (a system call); a kept one is a dictionary look-up, which the
/// event loops use.
final class ImageRules: Sendable {
    private struct Kept {
        let path: String
        let generation: Int
        let rule: FolderRule
    }

    private let table = Locked<[String: Kept]>([:])
    private let realRoots = Locked<[Int: String]>([:])

    /// The served folders' real paths, by root index.
    var roots: [Int: String] {
        get { realRoots.withLock { $0 } }
        set { realRoots.withLock { $0 = newValue } }
    }

    /// The rule kept for image `id` as the file at `path` under policy generation `generation`, or nil.
    func kept(_ id: String, path: String, generation: Int) -> FolderRule? {
        table.withLock { table in
            guard let kept = table[id], kept.path == path, kept.generation == generation else { return nil }
            return kept.rule
        }
    }

    /// Keeps `rule` for image `id` as the file at `path` under `generation`.
    func keep(_ rule: FolderRule, for id: String, path: String, generation: Int) {
        table.withLock { $0[id] = Kept(path: path, generation: generation, rule: rule) }
    }

    /// Forgets the rules of images gone from the library.
    func forget(_ ids: some Sequence<String>) {
        table.withLock { table in for id in ids { table[id] = nil } }
    }
}
