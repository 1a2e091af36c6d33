/// The encoded formats we read and write. Detected from magic bytes, never from a file name.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png

    /// The format whose signature starts `bytes`, or nil: JPEG is FF D8 FF, PNG the 8-byte signature.
    static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(8))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        return nil
    }

    /// The format a URL or file name extension names (`jpg`, `jpeg`, `png`, any case), or nil.
    public init?(fileExtension: some StringProtocol) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        default: return nil
        }
    }

    /// The usual file extension, also used in tile URLs.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        }
    }

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }
}
