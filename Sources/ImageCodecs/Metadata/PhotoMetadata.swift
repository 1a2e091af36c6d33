/// What a photo says about itself in its EXIF, IPTC and XMP blocks: who made it, what it shows, when, with what
/// camera and where. Only the fields the file carries are set. Read from the header alone (`MetadataReader`);
/// tiles and images never carry any of it.
package struct PhotoMetadata: Sendable, Equatable {
    package var title: String?
    package var description: String?
    package var creators: [String] = []
    /// Who to credit (IPTC Credit Line).
    package var credit: String?
    /// The copyright notice, as written.
    package var copyright: String?
    /// The licence's URL (XMP `cc:license` or `xmpRights:WebStatement`).
    package var licence: String?
    package var keywords: [String] = []
    /// When the photo was taken: ISO 8601 `YYYY-MM-DDThh:mm:ss`, with the UTC offset (`+02:00`) when the file
    /// records one.
    package var dateTaken: String?
    package var make: String?
    package var model: String?
    package var lens: String?
    /// Exposure time as photographers write it: `1/250` or `2` (seconds).
    package var exposureTime: String?
    package var fNumber: Double?
    package var iso: Int?
    /// Focal length in millimetres.
    package var focalLength: Double?
    package var location: Location?
    /// The photographer's rating, XMP `xmp:Rating`: 1 to 5 stars, 0 unrated, -1 rejected.
    package var rating: Int?
    /// What one pixel measures on the thing imaged, in millimetres, where the file says so in real units and it is
    /// not a camera's nominal print size (`EXIFFields.millimetresPerPixel`): a scan, a microscope's TIFF.
    package var millimetresPerPixel: Double?

    /// A place on the WGS 84 ellipsoid, as EXIF's GPS block gives it.
    package struct Location: Sendable, Equatable {
        /// Degrees north (negative: south).
        package var latitude: Double
        /// Degrees east (negative: west).
        package var longitude: Double
        /// Metres above sea level (negative: below).
        package var altitude: Double?
    }

    package init() {}

    package var isEmpty: Bool { self == PhotoMetadata() }

    /// What may be published: everything, or without where it was taken while the location setting is off.
    package func published(location: Bool) -> PhotoMetadata {
        var copy = self
        if !location { copy.location = nil }
        return copy
    }

    /// Fields of `self` that are unset, taken from `other`: the first source that has a field wins.
    func filled(from other: PhotoMetadata) -> PhotoMetadata {
        var m = self
        m.title = m.title ?? other.title
        m.description = m.description ?? other.description
        if m.creators.isEmpty { m.creators = other.creators }
        m.credit = m.credit ?? other.credit
        m.copyright = m.copyright ?? other.copyright
        m.licence = m.licence ?? other.licence
        if m.keywords.isEmpty { m.keywords = other.keywords }
        m.dateTaken = m.dateTaken ?? other.dateTaken
        m.make = m.make ?? other.make
        m.model = m.model ?? other.model
        m.lens = m.lens ?? other.lens
        m.exposureTime = m.exposureTime ?? other.exposureTime
        m.fNumber = m.fNumber ?? other.fNumber
        m.iso = m.iso ?? other.iso
        m.focalLength = m.focalLength ?? other.focalLength
        m.location = m.location ?? other.location
        m.rating = m.rating ?? other.rating
        m.millimetresPerPixel = m.millimetresPerPixel ?? other.millimetresPerPixel
        return m
    }
}
