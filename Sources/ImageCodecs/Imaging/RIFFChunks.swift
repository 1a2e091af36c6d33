/// The chunks of a WebP file (a RIFF container of type `WEBP`) that carry what is not pixels: `ICCP` (the ICC
/// profile), `EXIF` (a TIFF structure, sometimes behind an `Exif\0\0` header) and `XMP `. Walked from the header
/// without decoding; bounded like `MetadataBlocks`: a chunk over `maxChunk` bytes is skipped, the walk stops at
/// `maxChunks` chunks or at a chunk that runs past the file.
struct RIFFChunks: Sendable, Equatable {
    var profile: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?

    static let maxChunk = 16 << 20
    static let maxChunks = 1_024

    init() {}

    /// The chunks of the file `input` holds; empty when it is not a RIFF WebP.
    init(_ input: ImageInput) throws {
        let head = try input.read(count: 12, at: 0)
        guard head.count == 12, head[0 ..< 4].elementsEqual("RIFF".utf8), head[8 ..< 12].elementsEqual("WEBP".utf8) else { return }
        let riffEnd = min(Int64(Self.le32(head, 4)) + 8, try input.stamp().size)
        var offset: Int64 = 12
        for _ in 0 ..< Self.maxChunks {
            guard offset + 8 <= riffEnd else { break }
            let chunk = try input.read(count: 8, at: offset)
            guard chunk.count == 8 else { break }
            let size = Int64(Self.le32(chunk, 4))
            guard offset + 8 + size <= riffEnd else { break }
            let type = String(decoding: chunk[0 ..< 4], as: UTF8.self)
            if size <= Int64(Self.maxChunk), ["ICCP", "EXIF", "XMP "].contains(type) {
                let data = try input.read(count: Int(size), at: offset + 8)
                guard data.count == Int(size) else { break }
                switch type {
                case "ICCP": if profile == nil { profile = data }
                case "EXIF": if exif == nil { exif = data.starts(with: Array("Exif\0\0".utf8)) ? Array(data.dropFirst(6)) : data }
                default: if xmp == nil { xmp = data }
                }
            }
            offset += 8 + size + (size & 1)
        }
    }

    private static func le32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
