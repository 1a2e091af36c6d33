import CImageIO
import POSIXSupport

/// The metadata blocks of a JPEG, PNG, WebP or HEIF/AVIF file, as stored, found by walking its header (segments or chunks up to the
/// image data) without decoding a pixel. Bounded: blocks over `maxBlock` bytes, walks past `maxOffset` bytes or
/// `maxSegments` segments stop or skip, never fail.
struct MetadataBlocks: Sendable, Equatable {
    /// A TIFF structure (from `II`/`MM`): JPEG `APP1 Exif`, PNG `eXIf`, WebP `EXIF`.
    var exif: [UInt8]?
    /// An XMP packet: JPEG `APP1` of Adobe's namespace, PNG `iTXt XML:com.adobe.xmp`, WebP `XMP `.
    var xmp: [UInt8]?
    /// Photoshop image resources (`8BIM`…) of JPEG `APP13`, joined over segments: IPTC-IIM lives in one of them.
    var photoshop: [UInt8]?
    /// PNG `tEXt` and uncompressed `iTXt` entries by keyword (`Title`, `Author`, `Description`, `Copyright`…).
    var text: [String: String] = [:]
    /// A JPEG's JFIF density (`APP0`).
    var density: Density?

    /// JFIF's unit (1 per inch, 2 per centimetre) and horizontal pixels per unit.
    struct Density: Sendable, Equatable {
        let unit: Int
        let x: Int
    }

    static let maxBlock = 1 << 20
    static let maxOffset: Int64 = 64 << 20
    static let maxSegments = 4_096

    private static let exifHeader = Array("Exif\0\0".utf8)
    private static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    private static let photoshopHeader = Array("Photoshop 3.0\0".utf8)
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The blocks of the file at `path`; empty for a format that has none we read.
    static func read(path: String, files: ImageFiles) throws -> MetadataBlocks {
        let file = try files.open(path)
        let head = try file.read(count: 12, at: 0)
        if head.starts(with: [0xFF, 0xD8]) { return try jpeg(file) }
        if head.starts(with: pngSignature) { return try png(file) }
        if [.heic, .avif].contains(SourceFormat.detect(head)) { return heif(file) }
        if head.starts(with: Array("RIFF".utf8)) {
            let chunks = try RIFFChunks(file)
            var blocks = MetadataBlocks()
            blocks.exif = chunks.exif
            blocks.xmp = chunks.xmp
            return blocks
        }
        return MetadataBlocks()
    }

    /// The APP segments before the first scan.
    private static func jpeg(_ file: ImageInput) throws -> MetadataBlocks {
        var blocks = MetadataBlocks()
        var offset: Int64 = 2
        for _ in 0 ..< maxSegments {
            guard offset < maxOffset else { break }
            let head = try file.read(count: 4, at: offset)
            guard head.count == 4, head[0] == 0xFF else { break }
            let marker = head[1]
            if marker == 0xFF { offset += 1; continue } /* fill byte */
            if marker == 0xD8 || marker == 0x01 || (0xD0 ... 0xD7).contains(marker) { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { break } /* the image data: no metadata after here is read */
            let length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 2 else { break }
            if marker == 0xE0, length >= 14, blocks.density == nil {
                let data = try file.read(count: 12, at: offset + 4)
                if data.count == 12, data.starts(with: Array("JFIF\0".utf8)), (1 ... 2).contains(data[7]) {
                    blocks.density = Density(unit: Int(data[7]), x: Int(data[8]) << 8 | Int(data[9]))
                }
            }
            if marker == 0xE1 || marker == 0xED {
                let data = try file.read(count: length - 2, at: offset + 4)
                guard data.count == length - 2 else { break }
                if marker == 0xE1, blocks.exif == nil, data.starts(with: exifHeader) {
                    blocks.exif = Array(data.dropFirst(exifHeader.count))
                } else if marker == 0xE1, blocks.xmp == nil, data.starts(with: xmpHeader) {
                    blocks.xmp = Array(data.dropFirst(xmpHeader.count))
                } else if marker == 0xED, data.starts(with: photoshopHeader) {
                    let more = data.dropFirst(photoshopHeader.count)
                    if (blocks.photoshop?.count ?? 0) + more.count <= maxBlock { blocks.photoshop = (blocks.photoshop ?? []) + more }
                }
            }
            offset += 2 + Int64(length)
        }
        return blocks
    }

    /// The primary image's `Exif` and XMP (`mime`, `application/rdf+xml`) items, as libheif hands them over.
    private static func heif(_ file: ImageInput) -> MetadataBlocks {
        var blocks = MetadataBlocks()
        var st = tsio_status()
        guard let handle = file.withRaw({ tsio_heif_open($0, HEIFSource.maxSide, nil, &st) }) else { return blocks }
        defer { tsio_heif_close(handle) }
        func item(_ xmp: Int32) -> [UInt8]? {
            ColourTransform.profile { tsio_heif_metadata(handle, xmp, &$0, &$1) }.flatMap { $0.count <= maxBlock ? $0 : nil }
        }
        blocks.exif = item(0)
        blocks.xmp = item(1)
        return blocks
    }

    /// The ancillary chunks before the first `IDAT`.
    private static func png(_ file: ImageInput) throws -> MetadataBlocks {
        var blocks = MetadataBlocks()
        var offset: Int64 = 8
        for _ in 0 ..< maxSegments {
            guard offset < maxOffset else { break }
            let head = try file.read(count: 8, at: offset)
            guard head.count == 8 else { break }
            let length = Int64(head[0]) << 24 | Int64(head[1]) << 16 | Int64(head[2]) << 8 | Int64(head[3])
            let type = String(decoding: head[4 ..< 8], as: UTF8.self)
            if type == "IDAT" || type == "IEND" || length > Int64(Int32.max) { break }
            if length <= Int64(maxBlock), type == "eXIf" || type == "tEXt" || type == "iTXt" {
                let data = try file.read(count: Int(length), at: offset + 8)
                guard data.count == Int(length) else { break }
                blocks.take(type, data)
            }
            offset += 12 + length
        }
        return blocks
    }

    private mutating func take(_ type: String, _ data: [UInt8]) {
        if type == "eXIf" {
            if exif == nil { exif = data }
            return
        }
        guard let nul = data.firstIndex(of: 0), nul > 0, nul < 80 else { return }
        guard let keyword = MetadataText.latin1(data[..<nul]) else { return }
        if type == "tEXt" {
            if text[keyword] == nil, let value = MetadataText.latin1(data[(nul + 1)...]) { text[keyword] = value }
            return
        }
        /* iTXt: keyword, NUL, compression flag, method, language tag, NUL, translated keyword, NUL, text. */
        let rest = data[(nul + 1)...]
        guard rest.count >= 2, rest[rest.startIndex] == 0 else { return } /* compressed iTXt is not inflated */
        var fields = rest.dropFirst(2).split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { return }
        let value = fields.removeLast()
        if keyword == "XML:com.adobe.xmp" {
            if xmp == nil { xmp = Array(value) }
        } else if text[keyword] == nil, let value = MetadataText.utf8(value) {
            text[keyword] = value
        }
    }
}
