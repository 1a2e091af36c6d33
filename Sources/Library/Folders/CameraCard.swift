import ImageCodecs

/// A camera card's files as one photo per shot: in one folder, files that share a stem (any case) are one photo.
/// A JPEG or HEIC (any format a source reads) is the photo; a camera raw of the same stem is its "Original RAW",
/// offered as a second download and not listed; an XMP sidecar (`IMG_0005.xmp`, or darktable's
/// `IMG_0005.CR2.xmp`) lends it its title, keywords and rating. A raw with no picture beside it is listed on its
/// own ("RAW without a preview"), its sidecar with it.
package enum CameraCard {

    /// The files that go with one listed photo: its raw and its sidecar, by file name (nil: none).
    package struct Companions: Sendable, Equatable {
        package var raw: String?
        package var sidecar: String?

        package var isEmpty: Bool { raw == nil && sidecar == nil }
    }

    /// Of the image files `images` and the XMP files `sidecars` of one folder: the images to list, and the
    /// companions of those that have any (by listed file name).
    package static func group(images: [String], sidecars: [String]) -> (listed: [String], companions: [String: Companions]) {
        var byStem: [String: [String]] = [:]
        for name in images { byStem[key(name), default: []].append(name) }
        var listed: [String] = [], companions: [String: Companions] = [:]
        for (stem, names) in byStem {
            let pictures = names.filter { !isRaw($0) }.sorted(by: rank), raws = names.filter(isRaw).sorted()
            listed += pictures.isEmpty ? raws : pictures
            // The photo a raw belongs to: the first picture of its stem (JPEG before HEIC before the rest).
            if let photo = pictures.first, let raw = raws.first { companions[photo, default: Companions()].raw = raw }
            let owner = pictures.first ?? raws.first
            if let owner, let sidecar = sidecars.filter({ sidecarKey($0) == stem }).sorted().first {
                companions[owner, default: Companions()].sidecar = sidecar
            }
        }
        return (listed, companions)
    }

    /// Whether `name`'s extension is a camera raw's.
    package static func isRaw(_ name: String) -> Bool { SourceFormat.isCameraRaw(fileName: name) }

    /// Whether `name` is an XMP sidecar's.
    package static func isSidecar(_ name: String) -> Bool { !name.hasPrefix(".") && ext(name) == "xmp" }

    private static func ext(_ name: String) -> String {
        name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
    }

    /// The stem files of one shot share: the name without its extension, lower-cased.
    private static func key(_ name: String) -> String {
        (name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name).lowercased()
    }

    /// A sidecar's stem: `IMG_0005.xmp` and `IMG_0005.CR2.xmp` both belong to the shot `img_0005`.
    private static func sidecarKey(_ name: String) -> String {
        let stem = key(name)
        return isRaw(stem) || SourceFormat(fileExtension: ext(stem)) != nil ? key(stem) : stem
    }

    /// Which picture of a shot is the photo: JPEG, then HEIC, then the rest, each by name.
    private static func rank(_ a: String, _ b: String) -> Bool {
        func order(_ name: String) -> Int {
            switch SourceFormat(fileExtension: ext(name)) {
            case .jpeg?: 0
            case .heic?: 1
            default: 2
            }
        }
        return order(a) != order(b) ? order(a) < order(b) : a < b
    }
}
