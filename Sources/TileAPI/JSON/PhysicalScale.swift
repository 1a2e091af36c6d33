import Library
import Pyramid

/// What one pixel of an image measures, in millimetres, where its file says so: a slide's microns per pixel, a
/// TIFF's resolution in real units (both from the header), a scan's EXIF resolution (from the search index, so no
/// file is read to answer). As IIIF's physical dimensions service gives it, and `physical` in `/api/images`.
enum PhysicalScale {
    static let profile = "http://iiif.io/api/annex/services/physdim"
    static let context = "http://iiif.io/api/annex/services/physdim/1/context.json"

    /// Millimetres per pixel of image `id` at `snapshot`, or nil when nothing says.
    static func of(_ id: String, _ snapshot: PyramidImage.Snapshot, library: ImageLibrary) -> Double? {
        snapshot.source.info.millimetresPerPixel ?? library.millimetresPerPixel(of: id)
    }

    /// The physical dimensions service of a IIIF image service `serviceID`.
    static func service(_ scale: Double, serviceID: String) -> JSONValue {
        .object([
            ("@context", .string(context)),
            ("id", .string(serviceID + "#physdim")),
            ("type", "Service"),
            ("profile", .string(profile)),
            ("physicalScale", .double(scale)),
            ("physicalUnits", "mm"),
        ])
    }

    /// `physical` in an image's entry: millimetres per pixel, for scale bars and rulers.
    static func entry(_ scale: Double?) -> [(String, JSONValue)] {
        scale.map { [("physical", .object([("scale", .double($0)), ("units", "mm")]))] } ?? []
    }
}
