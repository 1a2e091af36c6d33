import POSIXSupport

/// Where an image stands in the library's order: the command-line path it came from (in the order given), then
/// its id. With one folder that is simply the order of paths, which is what `/api/images` pages through.
package struct LibraryKey: Hashable, Comparable, Sendable {
    /// Index of the command-line path (file or folder) the image was found under.
    package let root: Int
    package let id: String

    package init(root: Int, id: String) {
        self.root = root
        self.id = id
    }

    /// Ids are ASCII (`ImageNaming`), for which `String`'s `<` is byte order, on its fast path.
    package static func < (a: LibraryKey, b: LibraryKey) -> Bool {
        a.root != b.root ? a.root < b.root : a.id < b.id
    }

    /// The folder an id sits in: everything before its last `/`, or "" at the top.
    package static func folder(of id: String) -> String {
        PathText.parent(of: id) // ids never start with "/"
    }
}
