/// The file formats images are read from. Detected from magic bytes, never from a file name; the name's
/// extension only says which files of a folder are images.
public enum SourceFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    /// TIFF and BigTIFF, striped, tiled or pyramidal.
    case tiff
    /// JPEG 2000: a JP2 file or a bare code-stream (HTJ2K too).
    case jp2
    /// WebP photos (libwebp): decoded whole, once a pass.
    case webp
    /// HEIF photos, HEVC-coded (HEIC, as iPhones save them), through libheif: decoded whole, once a pass.
    case heic
    /// AVIF photos (AV1 in HEIF) through libheif: decoded whole, once a pass.
    case avif
    /// Whole-slide images (Aperio SVS, Hamamatsu NDPI and VMS, MIRAX, Leica SCN, Philips TIFF, Ventana BIF, Sakura)
    /// through OpenSlide: local files only, read by level and region (`SlideSource`).
    case slide

    /// The format whose signature starts `bytes`, or nil: JPEG, PNG and WebP as `ImageFormat` knows them, TIFF,
    /// JPEG 2000.
    package static func detect(_ bytes: some Collection<UInt8>) -> SourceFormat? {
        let head = Array(bytes.prefix(12))
        switch ImageFormat.detect(head) {
        case .jpeg: return .jpeg
        case .png: return .png
        case .webp: return .webp
        case .avif: return .avif
        case nil: break
        }
        // "II" or "MM", then 42 (classic) or 43 (BigTIFF) in that byte order.
        if head.count >= 4, (head[0] == 0x49 && head[1] == 0x49 && (head[2] == 42 || head[2] == 43) && head[3] == 0)
            || (head[0] == 0x4D && head[1] == 0x4D && head[2] == 0 && (head[3] == 42 || head[3] == 43)) { return .tiff }
        if head.starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jp2 }
        if head.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) { return .jp2 }
        // An ISO base media file (`ftyp` box) whose major brand is a HEIF image's.
        if head.count == 12, head[4 ..< 8].elementsEqual("ftyp".utf8) {
            switch String(decoding: head[8 ..< 12], as: UTF8.self) {
            case "avif", "avis": return .avif
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "mif2": return .heic
            default: return nil
            }
        }
        return nil
    }

    /// The format a file name's extension says (any case), or nil for names that are not images.
    package init?(fileExtension: some StringProtocol) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
        case "png": self = .png
        case "tif", "tiff", "btf", "ptif": self = .tiff
        case "jp2", "j2k", "j2c", "jpf", "jph", "jhc": self = .jp2
        case "webp": self = .webp
        case "heic", "heif", "hif": self = .heic
        case "avif": self = .avif
        case "svs", "ndpi", "vms", "vmu", "scn", "mrxs", "svslide", "bif": self = .slide
        default: return nil
        }
    }

    /// Image formats people keep beside their photos that no source reads, by file extension: such files are
    /// listed (marked "cannot be shown: format not supported"), never silently skipped.
    static let unreadableExtensions: [String: String] = [
        "gif": "GIF", "bmp": "BMP", "jxl": "JPEG XL", "psd": "Photoshop", "psb": "Photoshop", "svg": "SVG", "ico": "ICO",
        "exr": "OpenEXR", "hdr": "Radiance HDR", "tga": "TGA", "jpx": "JPEG 2000 Part 2", "cr2": "Canon raw",
        "cr3": "Canon raw", "nef": "Nikon raw", "arw": "Sony raw", "raf": "Fujifilm raw", "orf": "Olympus raw",
        "rw2": "Panasonic raw", "pef": "Pentax raw", "srw": "Samsung raw", "dng": "DNG raw", "avifs": "AVIF sequence",
        "dcm": "DICOM (a whole-slide image in DICOM needs OpenSlide 4; this server has OpenSlide 3.4)",
    ]

    /// Camera raw formats, by extension: never decoded. Most are TIFF inside, whose first directory is a small or
    /// old-style preview: shown, it would be a wrong picture, so a raw is refused by its name before its bytes.
    package static let cameraRawExtensions: Set<String> = ["cr2", "cr3", "nef", "arw", "dng", "raf", "orf", "rw2", "pef", "srw"]

    /// Whether `fileName` (a name or a path) ends in a camera raw's extension (any case).
    package static func isCameraRaw(fileName: String) -> Bool {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return false }
        return cameraRawExtensions.contains(fileName[fileName.index(after: dot)...].lowercased())
    }

    /// Whether `fileName` (a name or a path) ends in a whole-slide image's extension (any case).
    package static func isSlide(fileName: String) -> Bool {
        named(fileName) == .slide
    }

    /// The format `fileName`'s extension (any case) says, or nil.
    static func named(_ fileName: String) -> SourceFormat? {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        return SourceFormat(fileExtension: fileName[fileName.index(after: dot)...])
    }

    /// Whether a file name's extension (any case) is an image's: one a source reads, or one listed as unreadable.
    package static func isImageExtension(_ ext: some StringProtocol) -> Bool {
        SourceFormat(fileExtension: ext) != nil || unreadableExtensions[ext.lowercased()] != nil
    }

    /// The name of a format no source reads, from its first bytes, or nil.
    static func unreadableFormat(_ head: [UInt8]) -> String? {
        func starts(_ text: String) -> Bool { head.starts(with: Array(text.utf8)) }
        if starts("GIF87a") || starts("GIF89a") { return "GIF" }
        if starts("BM"), head.count >= 6 { return "BMP" }
        if head.starts(with: [0xFF, 0x0A]) || head.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return "JPEG XL" }
        if starts("8BPS") { return "Photoshop" }
        if head.starts(with: [0x76, 0x2F, 0x31, 0x01]) { return "OpenEXR" }
        if starts("#?RADIANCE") || starts("#?RGBE") { return "Radiance HDR" }
        if starts("<svg") || starts("<?xml") { return "SVG" }
        if head.count >= 12, head[4 ..< 8].elementsEqual("ftyp".utf8) {
            let brand = String(decoding: head[8 ..< 12], as: UTF8.self)
            return brand == "crx " ? "Canon raw" : "ISO media, brand '\(brand)'"
        }
        return nil
    }

    /// The name of a format no source reads, from a file name's extension, or nil.
    package static func unreadableFormat(fileName: String) -> String? {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        return unreadableExtensions[fileName[fileName.index(after: dot)...].lowercased()]
    }

    /// How messages name it.
    var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .tiff: "TIFF"
        case .jp2: "JPEG 2000"
        case .webp: "WebP"
        case .heic: "HEIF"
        case .avif: "AVIF"
        case .slide: "whole-slide"
        }
    }
}
