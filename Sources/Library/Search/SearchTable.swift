#if canImport(Glibc)
import Glibc
#endif

/// The index as searches read it, made once per change rather than per request: one row per image in path
/// order, its words as UTF-8 bytes (folded, `TextFolding`: a substring of bytes is a substring of letters), and each
/// order worked out beforehand. A search is then one pass over the rows in the order asked, with no sorting,
/// hashing or lock: the first page of 100,000 images in a few milliseconds (`bench/search.sh`).
struct SearchTable: Sendable {
    struct Row: Sendable {
        let entry: ImageLibrary.Entry
        /// The folder the image is in ("" at the top).
        let folder: String
        let text: [UInt8]
        let record: SearchRecord?
    }

    let rows: [Row]
    /// Row numbers in each order (`SearchQuery.precedes`), ascending and descending: not one reversed, since
    /// undated photos come last in both.
    let orders: [Order: [Int32]]

    struct Order: Hashable {
        let sort: SearchQuery.Sort
        let ascending: Bool
    }
    /// Row numbers by file name, ascending and descending, where some photo is shown by its title: where images
    /// known by their name alone go (their titles are not theirs to be placed by). Nil where no row has a title:
    /// the name order is the file-name order.
    let fileNameOrders: [Bool: [Int32]]?
    /// The library generation and index version it was made from.
    let generation: Int
    let version: Int

    init(members: [ImageLibrary.Entry], records: [SearchRecord?], generation: Int, version: Int) {
        let rows = zip(members, records).map { entry, record in
            Row(entry: entry, folder: LibraryKey.folder(of: entry.id), text: Array((record?.text ?? TextFolding.fold(entry.id)).utf8), record: record)
        }
        var orders: [Order: [Int32]] = [:]
        for sort in SearchQuery.Sort.allCases {
            for ascending in [true, false] {
                let query = SearchQuery(sort: sort, ascending: ascending)
                orders[Order(sort: sort, ascending: ascending)] = rows.indices.map(Int32.init).sorted { a, b in
                    query.precedes((rows[Int(a)].entry.key, rows[Int(a)].record), (rows[Int(b)].entry.key, rows[Int(b)].record))
                }
            }
        }
        if rows.contains(where: { $0.record?.title != nil }) {
            var byFile: [Bool: [Int32]] = [:]
            for ascending in [true, false] {
                byFile[ascending] = rows.indices.map(Int32.init).sorted { a, b in
                    let (p, q) = (rows[Int(a)].entry.key.root, rows[Int(b)].entry.key.root)
                    if p != q { return ascending == (p < q) }
                    let (x, y) = (rows[Int(a)].record?.fileName ?? rows[Int(a)].entry.id, rows[Int(b)].record?.fileName ?? rows[Int(b)].entry.id)
                    if x != y { return ascending ? NameOrder.precedes(x, y) : NameOrder.precedes(y, x) }
                    return rows[Int(a)].entry.id < rows[Int(b)].entry.id
                }
            }
            fileNameOrders = byFile
        } else {
            fileNameOrders = nil
        }
        self.rows = rows
        self.orders = orders
        self.generation = generation
        self.version = version
    }

    /// The entries `query` finds, in its order: with words, in `folder` and below (nil or "": everywhere);
    /// without, in `folder` itself (nil: everywhere); each admitted by `admits`.
    func search(_ query: SearchQuery, folder: String?, admits: (String) -> SearchAdmission) -> [ImageLibrary.Entry] {
        let words = query.words.map { Array($0.utf8) }
        let below = folder.flatMap { $0.isEmpty ? nil : $0 + "/" }
        let only = query.words.isEmpty ? folder : nil
        var found: [ImageLibrary.Entry] = []
        var byName: Set<Int32> = []
        func visit(_ k: Int32) {
            let row = rows[Int(k)]
            if let only, row.folder != only { return }
            if only == nil, let below, !row.entry.id.hasPrefix(below) { return }
            for word in words where !Self.contains(row.text, word) { return }
            switch admits(row.entry.id) {
            case .shown: found.append(row.entry)
            case .byName where query.sort == .name && fileNameOrders == nil: found.append(row.entry)
            case .byName: byName.insert(k)
            case .left: break
            }
        }
        (orders[Order(sort: query.sort, ascending: query.ascending)] ?? []).forEach(visit)
        // Placed by what the file says (its date, its title), they would tell what is kept from the one asking:
        // after the rest, by file name.
        if !byName.isEmpty {
            for k in fileNameOrders?[query.ascending] ?? orders[Order(sort: .name, ascending: query.ascending)] ?? [] where byName.contains(k) {
                found.append(rows[Int(k)].entry)
            }
        }
        return found
    }

    static func contains(_ text: [UInt8], _ word: [UInt8]) -> Bool {
        guard !word.isEmpty else { return true }
        guard word.count <= text.count else { return false }
        // memchr to each place the word's first byte is, then memcmp (Glibc's memmem is not exported to Swift).
        return text.withUnsafeBytes { t in
            word.withUnsafeBytes { w in
                let first = Int32(w[0]), last = t.count - w.count
                var at = 0
                while at <= last {
                    guard let hit = memchr(t.baseAddress! + at, first, last - at + 1) else { return false }
                    at = UnsafeRawPointer(hit) - t.baseAddress!
                    if memcmp(t.baseAddress! + at, w.baseAddress!, w.count) == 0 { return true }
                    at += 1
                }
                return false
            }
        }
    }
}

/// How a search treats one image for the one asking: found and placed by its data, listed by its name alone (a
/// locked image in a folder's listing: its dates and words are not theirs to sort or search by), or left out.
package enum SearchAdmission: Sendable {
    case shown
    case byName
    case left
}
