/// A search of the library as `/api/images?q=…&sort=…&order=…` asks it: words that must all appear (in the
/// name, title, caption, keywords or creators, case and accents ignored: `TextFolding`), and an order.
package struct SearchQuery: Sendable, Equatable {
    package enum Sort: String, Sendable, CaseIterable {
        /// By name as written on disk, folded, digits as numbers (`NameOrder`), then path.
        case name
        /// By the date the file says the photo was taken; photos without one after those with one.
        case taken
        /// By the file's modification time.
        case added
    }

    package let words: [String]
    package let sort: Sort
    package let ascending: Bool

    /// `q` split at white space, folded; `order` `asc` or `desc` (by default A to Z, oldest taken first,
    /// newest added first). Nil with a message for anything else.
    package init(q: String?, sort: String?, order: String?) throws(SearchQueryError) {
        words = TextFolding.fold(q ?? "").split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard words.count <= 16, (q ?? "").utf8.count <= 512 else { throw .tooLong }
        guard let chosen = Sort(rawValue: sort ?? "name") else { throw .unknownSort(sort ?? "") }
        self.sort = chosen
        switch order {
        case nil: ascending = chosen != .added
        case "asc"?: ascending = true
        case "desc"?: ascending = false
        case let other?: throw .unknownOrder(other)
        }
    }

    /// No words, `sort` in one direction: how `SearchTable` works out each order.
    init(sort: Sort, ascending: Bool) {
        words = []
        self.sort = sort
        self.ascending = ascending
    }

    /// Whether `a` comes before `b` in this order (ties by id, so pages never overlap). By name, the command
    /// line's order of paths comes first (files named one by one are paged as they were given), then the name.
    func precedes(_ a: (key: LibraryKey, record: SearchRecord?), _ b: (key: LibraryKey, record: SearchRecord?)) -> Bool {
        switch sort {
        case .name:
            if a.key.root != b.key.root { return ascending == (a.key.root < b.key.root) }
            let (x, y) = (a.record?.name ?? a.key.id, b.record?.name ?? b.key.id)
            if x != y { return ascending ? NameOrder.precedes(x, y) : NameOrder.precedes(y, x) }
        case .taken:
            switch (a.record?.taken, b.record?.taken) {
            case let (x?, y?) where x != y: return ascending ? x < y : x > y
            case (_?, nil): return true
            case (nil, _?): return false
            default: break
            }
        case .added:
            let (x, y) = (a.record?.added ?? 0, b.record?.added ?? 0)
            if x != y { return ascending ? x < y : x > y }
        }
        return a.key.id < b.key.id
    }
}

/// Why a search was refused, in words a person can act on.
package enum SearchQueryError: Error, Equatable, CustomStringConvertible {
    case unknownSort(String)
    case unknownOrder(String)
    case tooLong

    package var description: String {
        switch self {
        case let .unknownSort(s): "sort must be name, taken or added, not '\(s)'"
        case let .unknownOrder(o): "order must be asc or desc, not '\(o)'"
        case .tooLong: "q may hold at most 16 words and 512 bytes"
        }
    }
}
