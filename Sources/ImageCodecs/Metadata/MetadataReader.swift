import POSIXSupport

/// A photo's `PhotoMetadata` from its file's header: XMP first, then IPTC, then EXIF for what a person wrote
/// (title, caption, creator, rights, keywords), as the Metadata Working Group advises; EXIF first for what the
/// camera recorded (date, camera, exposure, place). PNG's own text chunks fill what is still missing.
package enum MetadataReader {
    package static func read(path: String, files: ImageFiles) throws -> PhotoMetadata {
        // A whole-slide image's header text is the scanner's and may name a patient (a user, a file name, a
        // barcode): none of it is read; what a slide publishes is `SlideFacts`, from an allow-list. (TIFF files,
        // which most slides are, give no blocks here at all.)
        if SourceFormat.isSlide(fileName: path) { return PhotoMetadata() }
        return merge(try MetadataBlocks.read(path: path, files: files))
    }

    /// What an XMP sidecar (`IMG_0005.xmp` beside `IMG_0005.JPG`, as Lightroom, darktable and Capture One write)
    /// says, read whole (it is a bare packet, at most `MetadataBlocks.maxBlock` of it).
    package static func readSidecar(path: String, files: ImageFiles) throws -> PhotoMetadata {
        let file = try files.open(path)
        return XMPPacket(try file.read(count: MetadataBlocks.maxBlock, at: 0)).read()
    }

    /// `embedded` with what its sidecar says put first: the sidecar is where an editor writes the photographer's
    /// later changes (title, keywords, rating), so its fields win; the file's own fill the rest.
    package static func overriding(_ embedded: PhotoMetadata, with sidecar: PhotoMetadata) -> PhotoMetadata {
        sidecar.filled(from: embedded)
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
        // A scan's JFIF density where EXIF says nothing of it (`EXIFFields.millimetresPerPixel`'s rules).
        if m.millimetresPerPixel == nil, let density = blocks.density, exif.exposureTime == nil, exif.fNumber == nil {
            m.millimetresPerPixel = ImageInfo.millimetresPerPixel(unit: density.unit == 2 ? 3 : 2, resolution: Double(density.x))
        }
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
