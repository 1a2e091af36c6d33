import POSIXSupport

/// Finding and ordering images by what their files say (`SearchIndex`).
extension ImageLibrary {
    /// Every image's id and path, in path order.
    func members() -> [Entry] {
        state.withLock { state in state.order.compactMap { key in state.members[key.id].map { Entry(id: key.id, path: $0.path) } } }
    }

    /// The images `query` finds, in its order: with words, every image of `folder` and below (the whole library
    /// for nil or ""); without, `folder`'s own images (nil: the whole library). `admits` leaves out what the one
    /// who asks may not find (an image hidden or locked to them is not matched by its metadata). Nil when there
    /// is no such folder.
    package func search(_ query: SearchQuery, folder: String?, admits: (String) -> Bool) -> [Entry]? {
        let scope: [Entry]? = state.withLock { state in
            if query.words.isEmpty, let folder {
                guard let node = state.folders[folder] else { return nil }
                return node.images.compactMap { key in state.members[key.id].map { Entry(id: key.id, path: $0.path) } }
            }
            if let folder, !folder.isEmpty {
                guard state.folders[folder] != nil else { return nil }
                let prefix = folder + "/"
                return state.order.compactMap { key in
                    key.id.hasPrefix(prefix) ? state.members[key.id].map { Entry(id: key.id, path: $0.path) } : nil
                }
            }
            return state.order.compactMap { key in state.members[key.id].map { Entry(id: key.id, path: $0.path) } }
        }
        guard let scope else { return nil }
        let records = search.records(scope.map(\.path))
        var found: [(entry: Entry, record: SearchRecord?)] = []
        found.reserveCapacity(query.words.isEmpty ? scope.count : 64)
        for (entry, record) in zip(scope, records) where admits(entry.id) {
            if !query.words.isEmpty {
                guard let record, record.matches(query.words) else { continue }
            }
            found.append((entry, record))
        }
        found.sort { query.precedes(($0.entry.id, $0.record), ($1.entry.id, $1.record)) }
        return found.map(\.entry)
    }
}
