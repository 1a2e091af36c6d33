import POSIXSupport

/// Ids as earlier versions made them (`ImageNaming.legacyComponent`: ASCII only, case kept), so that an address
/// saved or shared before ids kept the file's letters still opens its image.
extension ImageLibrary {
    /// The id today of the image whose id was `old` under the earlier rule, or nil. The first call after a change
    /// to the library walks every image (it must not run on an event loop); later ones are a dictionary look-up.
    /// An old id that two files shared (a clash the earlier rule settled with `-2`) names the first in order.
    package func renamedID(_ old: String) -> String? {
        renames()[old]
    }

    /// The path today of the folder whose path was `old` under the earlier rule, or nil (as `renamedID`).
    package func renamedFolder(_ old: String) -> String? {
        renames()["/" + old]
    }

    /// Old id → id, and `/` and old folder path → folder path, for the library as it is now.
    private func renames() -> [String: String] {
        let generation = self.generation
        if let known = renameCache.withLock({ $0.generation == generation ? $0.map : nil }) { return known }
        let map = state.withLock { state -> [String: String] in
            var map: [String: String] = [:]
            for key in state.order {
                guard let member = state.members[key.id] else { continue }
                let folders = Self.folderNames(of: member).map { ImageNaming.legacyComponent($0) }
                let legacy = (folders + [ImageNaming.legacyStem(of: member.path)]).joined(separator: "/")
                if legacy != key.id, map[legacy] == nil { map[legacy] = key.id }
                let today = key.id.split(separator: "/").dropLast()
                for depth in stride(from: folders.count, to: 0, by: -1) {
                    let old = "/" + folders.prefix(depth).joined(separator: "/")
                    guard map[old] == nil, today.count == folders.count else { break }
                    map[old] = today.prefix(depth).joined(separator: "/")
                }
            }
            return map.filter { !$0.key.hasPrefix("/") || "/" + $0.value != $0.key }
        }
        renameCache.withLock { $0 = (generation, map) }
        return map
    }
}
