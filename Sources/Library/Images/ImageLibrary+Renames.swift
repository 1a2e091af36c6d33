import POSIXSupport

/// Ids as earlier versions made them, to today's (`RenameMap`).
extension ImageLibrary {
    /// The id today of the image whose id was `old` under the earlier rule, or nil. The first call after a change
    /// to the library walks every image (it must not run on an event loop); later ones are a dictionary look-up.
    package func renamedID(_ old: String) -> String? {
        renames().id(old)
    }

    /// The path today of the folder whose path was `old` under the earlier rule, or nil (as `renamedID`).
    package func renamedFolder(_ old: String) -> String? {
        renames().folder(old)
    }

    /// The map for the library as it is now.
    private func renames() -> RenameMap {
        let generation = self.generation
        if let known = renameCache.withLock({ $0.generation == generation ? $0.map : nil }) { return known }
        let map = RenameMap(catalogue.entries().map { ($0.id, $0.path) })
        renameCache.withLock { $0 = (generation, map) }
        return map
    }
}
