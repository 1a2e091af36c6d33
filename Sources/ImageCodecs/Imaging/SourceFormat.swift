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

    /// The format whose signature starts `bytes`, or nil: JPEG, PNG and WebP as `ImageFormat` knows them, TIFF,
    /// JPEG 2000.
    package static func detect(_ bytes: some Collection<UInt8>) -> SourceFormat? {
        let head = Array(bytes.prefix(12))
        switch ImageFormat.detect(head) {
        case .jpeg: return .jpeg
        case .png: return .png
        case .webp: return .webp
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
        default: return nil
        }
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
        }
    }
}
