import POSIXSupport

/// A photo's `PhotoMetadata` from its file's header: XMP first, then IPTC, then EXIF for what a person wrote
/// (title, caption, creator, rights, keywords), as the Metadata Working Group advises; EXIF first for what the
/// camera recorded (date, camera, exposure, place). PNG's own text chunks fill what is still missing.
package enum MetadataReader {
    package static func read(path: String, files: ImageFiles) throws -> PhotoMetadata {
        merge(try MetadataBlocks.read(path: path, files: files))
    }

    static func merge(_ blocks: MetadataBlocks) -> PhotoMetadata {
        let exif = blocks.exif.map(EXIFFields.read) ?? PhotoMetadata()
        let iptc = blocks.photoshop.map { IPTCRecords.read(photoshop: $0) } ?? PhotoMetadata()
        let xmp = blocks.xmp.map { XMPPacket($0).read() } ?? PhotoMetadata()
        var m = xmp.filled(from: iptc).filled(from: exif).filled(from: pngText(blocks.text))
        m.dateTaken = exif.dateTaken ?? m.dateTaken
        m.make = exif.make ?? m.make
        m.model = exif.model ?? m.model
        m.lens = exif.lens ?? m.lens
        return m
    }

    /// PNG's registered keywords.
    private static func pngText(_ text: [String: String]) -> PhotoMetadata {
        var m = PhotoMetadata()
        m.title = text["Title"]
        m.description = text["Description"]
        m.creators = text["Author"].map { [$0] } ?? []
        m.copyright = text["Copyright"]
        return m
    }
}
