/// Ids as earlier versions made them (`ImageNaming.legacyComponent`: ASCII only, case kept) to today's, so that an
/// address saved or shared before ids kept the file's letters still opens its image: old id → id, and `/` and old
/// folder path → folder path. Made from the library's images in order; a value, so it is kept beside the library
/// generation it was made at and made again after a change.
struct RenameMap: Sendable, Equatable {
    private let map: [String: String]

    /// The map of `images` (id and file path, in library order). An old id that two files shared (a clash the
    /// earlier rule settled with `-2`) names the first in order.
    init(_ images: [(id: String, path: String)]) {
        var map: [String: String] = [:]
        for (id, path) in images {
            let folders = ImageLibrary.folderNames(id: id, path: path).map { ImageNaming.legacyComponent($0) }
            let legacy = (folders + [ImageNaming.legacyStem(of: path)]).joined(separator: "/")
            if legacy != id, map[legacy] == nil { map[legacy] = id }
            let today = id.split(separator: "/").dropLast()
            for depth in stride(from: folders.count, to: 0, by: -1) {
                let old = "/" + folders.prefix(depth).joined(separator: "/")
                guard map[old] == nil, today.count == folders.count else { break }
                map[old] = today.prefix(depth).joined(separator: "/")
            }
        }
        self.map = map.filter { !$0.key.hasPrefix("/") || "/" + $0.value != $0.key }
    }

    /// The id today of the image whose id was `old`, or nil.
    func id(_ old: String) -> String? { map[old] }

    /// The path today of the folder whose path was `old`, or nil.
    func folder(_ old: String) -> String? { map["/" + old] }
}
