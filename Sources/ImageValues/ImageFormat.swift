/// The formats tiles, regions and view images are written in. Detected from magic bytes, never from a file name.
/// What files are read from is a `SourceFormat`.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    /// Lossy WebP (libwebp), at the JPEG quality mapped as `WebPQuality` says.
    case webp
    /// AVIF (AV1 intra through libheif's libaom encoder), at the JPEG quality mapped as `AVIFQuality` says.
    case avif

    /// The format whose signature starts `bytes`, or nil: JPEG is FF D8 FF, PNG the 8-byte signature, WebP a RIFF
    /// container of type WEBP, AVIF an `ftyp` box of brand `avif`.
    package static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(12))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count == 12, head[0 ..< 4].elementsEqual("RIFF".utf8), head[8 ..< 12].elementsEqual("WEBP".utf8) { return .webp }
        if head.count == 12, head[4 ..< 8].elementsEqual("ftyp".utf8), head[8 ..< 12].elementsEqual("avif".utf8) { return .avif }
        return nil
    }

    /// The format a URL's extension names (`jpg`, `jpeg`, `png`, `webp`, `avif`, any case), or nil.
    package init?(fileExtension: some StringProtocol) {
        var text = String(fileExtension)
        guard let format = text.withUTF8({ ImageFormat(extensionBytes: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = format
    }

    /// The same, on the extension's bytes (the fast tile path reads them in place): the one reading of extensions.
    /// Not generic, so a call from another module costs no witness table on every tile request.
    package init?(extensionBytes bytes: UnsafeRawBufferPointer) {
        func named(_ name: StaticString) -> Bool {
            guard bytes.count == name.utf8CodeUnitCount else { return false }
            let expected = name.utf8Start
            for k in 0 ..< bytes.count {
                let c = bytes[k]
                if (c >= 65 && c <= 90 ? c + 32 : c) != expected[k] { return false }
            }
            return true
        }
        if named("jpg") || named("jpeg") { self = .jpeg }
        else if named("png") { self = .png }
        else if named("webp") { self = .webp }
        else if named("avif") { self = .avif }
        else { return nil }
    }

    /// The usual file extension, also used in tile URLs.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .avif: "avif"
        }
    }

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        }
    }

    /// Whether tiles in this format keep an alpha channel (JPEG flattens it onto black).
    package var keepsAlpha: Bool { self != .jpeg }
}
