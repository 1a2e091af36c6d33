import ImageCodecs
import POSIXSupport

/// What search and sorting know of one file: the words a person wrote in it and its name, folded for matching,
/// and its dates. Read from the file's header (`MetadataReader`) by the index, once per version of the file.
package struct SearchRecord: Sendable, Equatable {
    /// Name, title, caption, keywords and creators, folded (`TextFolding`), one per line.
    package let text: String
    /// The name the photo is shown by, folded: the name order (`NameOrder`). Its title where titles are names
    /// and it has one, else its name as written on disk (without extension).
    package let name: String
    /// The name as written on disk (without extension), folded: where an image known by its name alone stands.
    package let fileName: String
    /// The photo's own title (XMP `dc:title`, IPTC Object Name) where titles are names and it has one: the name
    /// it is shown by to those who may see it.
    package let title: String?
    /// When the photo was taken as the file says (`YYYY-MM-DDTHH:MM:SS`, the camera's own clock); nil if it does not.
    package let taken: String?
    /// The file's modification time, nanoseconds since 1970: "date added".
    package let added: Int64
    /// The file's size and modification time when it was read: a record of another version is read again.
    let stamp: FileStamp
    /// Its XMP sidecar's, when it has one (`CameraCard`): a changed sidecar is read again too.
    var sidecarStamp: FileStamp?
    /// What one pixel measures, in millimetres, as its EXIF says (`PhotoMetadata.millimetresPerPixel`).
    package let millimetresPerPixel: Double?

    init(name: String, metadata: PhotoMetadata, stamp: FileStamp, titlesAsNames: Bool = false) {
        let written = [name, metadata.title, metadata.description].compactMap { $0 } + metadata.keywords + metadata.creators
        text = TextFolding.fold(written.joined(separator: "\n"))
        title = titlesAsNames ? Self.title(metadata.title) : nil
        fileName = TextFolding.fold(name)
        self.name = title.map(TextFolding.fold) ?? fileName
        taken = metadata.dateTaken.map { String($0.prefix(19)) }
        added = stamp.modified
        self.stamp = stamp
        millimetresPerPixel = metadata.millimetresPerPixel
    }

    /// Longest title shown as a name, in characters; a longer one is cut there with an ellipsis.
    static let titleLength = 200

    /// `text` as a name: one line, spaces trimmed, at most `titleLength` characters; nil when nothing is left.
    static func title(_ text: String?) -> String? {
        guard let text else { return nil }
        let first = text.split(whereSeparator: \.isNewline).first ?? ""
        let line = String(String(first.drop(while: \.isWhitespace).reversed()).drop(while: \.isWhitespace).reversed())
        guard !line.isEmpty else { return nil }
        return line.count > titleLength ? String(line.prefix(titleLength - 1)) + "…" : line
    }
}
