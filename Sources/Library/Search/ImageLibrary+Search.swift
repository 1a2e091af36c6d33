import POSIXSupport

/// Finding and ordering images by what their files say (`SearchIndex`).
extension ImageLibrary {
    /// Every image's id and path, in path order.
    func members() -> [Entry] {
        catalogue.entries()
    }

    /// The images `query` finds, in its order: with words, every image of `folder` and below (the whole library
    /// for nil or ""); without, `folder`'s own images (nil: the whole library). `admits` leaves out what the one
    /// who asks may not find (an image hidden or locked to them is not matched by its metadata). Nil when there
    /// is no such folder.
    package func search(_ query: SearchQuery, folder: String?, admits: (String) -> SearchAdmission) -> [Entry]? {
        if let folder, !folder.isEmpty || query.words.isEmpty {
            guard catalogue.withLock({ $0.folders[folder] != nil }) else { return nil }
        }
        return search.table(self).search(query, folder: folder, admits: admits)
    }
}
