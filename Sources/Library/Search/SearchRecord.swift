import ImageCodecs
import POSIXSupport

/// What search and sorting know of one file: the words a person wrote in it and its name, folded for matching,
/// and its dates. Read from the file's header (`MetadataReader`) by the index, once per version of the file.
package struct SearchRecord: Sendable, Equatable {
    /// Name, title, caption, keywords and creators, folded (`TextFolding`), one per line.
    package let text: String
    /// The name as written on disk (without extension), folded: the name order (`NameOrder`).
    package let name: String
    /// When the photo was taken as the file says (`YYYY-MM-DDTHH:MM:SS`, the camera's own clock); nil if it does not.
    package let taken: String?
    /// The file's modification time, nanoseconds since 1970: "date added".
    package let added: Int64
    /// The file's size and modification time when it was read: a record of another version is read again.
    let stamp: FileStamp

    init(name: String, metadata: PhotoMetadata, stamp: FileStamp) {
        let written = [name, metadata.title, metadata.description].compactMap { $0 } + metadata.keywords + metadata.creators
        text = TextFolding.fold(written.joined(separator: "\n"))
        self.name = TextFolding.fold(name)
        taken = metadata.dateTaken.map { String($0.prefix(19)) }
        added = stamp.modified
        self.stamp = stamp
    }
}
