import Glibc
@testable import ImageCodecs

/// The header's metadata (EXIF, IPTC, XMP, PNG text: `MetadataReader`), then the decoder through both doors: `ImageSource` over a file (header, then a region at full size and at 1/8,
/// as tiles ask, a tiled TIFF's stored JPEG tiles, then the whole image at 1/8 from the entry index's scan and regions through its extracts), and `ImageDecoder` over bytes in memory
/// (cached tiles), and cached tiles joined by their coefficients (`ImageEncoder.joinedJPEG`). The same code runs for any size, so
/// headers claiming more than 256² pixels are refused: a mutated header would otherwise make every run decode
/// millions of pixels of garbage, and the fuzzer would crawl.
/// A new name for every input: indexes are cached by path, size and modification time, and the scan's 1/8 decode
/// runs only on a fresh index.
nonisolated(unsafe) private var inputs = 0
/// Pyramids (tiled TIFFs, JPEG 2000) have a limit of their own, which is kept as small: a 388-byte code-stream
/// claiming 16,697 × 27,178 pixels passed the 40-gigapixel default, and the half-image region below took the
/// fuzzer's 10 s (a server asks for tiles, within its render budget; this asks for 113 million pixels at once).
private let limits = ImageLimits(maxPixels: 1 << 16, maxPyramidPixels: 1 << 16, maxDecoderMemory: 64 << 20)
/// The same, with every baseline JPEG entered through its entry index (`tsio_jidx_*`: header, scan, extract).
private let indexed = ImageLimits(maxPixels: 1 << 16, maxPyramidPixels: 1 << 16, maxDecoderMemory: 64 << 20, entryIndexPixels: 0)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    inputs += 1
    let path = "/dev/shm/tileserver-fuzz-\(getpid())-\(inputs).img"
    defer { unlink(path) }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    var done = 0
    while done < size {
        let n = write(fd, data + done, size - done)
        if n <= 0 { break }
        done += n
    }
    close(fd)
    _ = try? MetadataReader.read(path: path, files: .local)
    scrubLocation(Array(UnsafeBufferPointer(start: data, count: size)))
    var small = true
    do {
        let source = try ImageOpener.open(path, limits: limits)
        let info = source.info
        let w = info.width, h = info.height
        _ = try? source.decode(PixelRect(x: w / 3, y: h / 3, width: max(1, w / 2), height: max(1, h / 2)))
        _ = try? source.decode(PixelRect(x: 0, y: 0, width: max(1, w / 8), height: max(1, h / 8)), shrink: 8)
        // A tiled JPEG TIFF's tiles handed over as they are (`tsio_tiff_jpeg_tile`): the first two of every level.
        for level in source.structure.levels {
            guard let tw = level.tileWidth, let th = level.tileHeight, tw * th <= 1 << 16 else { continue }
            for x in [0, tw] {
                if let jpeg = try? source.storedJPEG(PixelRect(x: x, y: 0, width: tw, height: th), shrink: level.factor) {
                    _ = try? ImageDecoder.decode(jpeg)
                }
            }
        }
        let entered = try ImageOpener.open(path, limits: indexed)
        _ = try? entered.decode(PixelRect(x: 0, y: 0, width: (w + 7) / 8, height: (h + 7) / 8), shrink: 8)
        _ = try? entered.decode(PixelRect(x: w / 3, y: h / 3, width: max(1, w / 2), height: max(1, h / 2)))
        _ = try? entered.decode(PixelRect(x: w / 4, y: h / 2, width: max(1, (w + 1) / 2 - w / 4), height: max(1, (h + 1) / 2 - h / 2)),
                                shrink: 2)
        // Tiles joined by their coefficients (`tsio_jpeg_join`): the input beside itself, then beside its first half.
        let t = max(w, h), whole = Array(UnsafeBufferPointer(start: data, count: size))
        if t % 16 == 0 {
            let wide = w == t
            for second in [whole, Array(whole.prefix(size / 2))] {
                _ = ImageEncoder.joinedJPEG([whole, second], columns: wide ? 2 : 1, rows: wide ? 1 : 2, tileSize: t,
                                            width: wide ? 2 * w : w, height: wide ? h : 2 * h, profile: nil)
            }
        }
    } catch ImageSourceError.tooLarge {
        small = false
    } catch {}
    if small { _ = try? ImageDecoder.decode(Array(UnsafeBufferPointer(start: data, count: size))) }
    return 0
}

/// Where the photo was taken, removed in place (`LocationScrubber`, what originals go out through): every
/// overwrite lies inside the file, and the scrubbed file has nothing more to remove.
func scrubLocation(_ bytes: [UInt8]) {
    func outcome(_ file: [UInt8]) -> LocationScrubber.Outcome? {
        try? LocationScrubber.scrub(size: Int64(file.count)) { offset, count in
            guard offset >= 0, offset < Int64(file.count), count > 0 else { return [] }
            return Array(file[Int(offset) ..< min(file.count, Int(offset) + count)])
        }
    }
    guard case let .patches(patches)? = outcome(bytes) else { return }
    var scrubbed = bytes
    for patch in patches {
        precondition(patch.offset >= 0 && Int(patch.offset) + patch.bytes.count <= bytes.count, "an overwrite outside the file")
        scrubbed.replaceSubrange(Int(patch.offset) ..< Int(patch.offset) + patch.bytes.count, with: patch.bytes)
    }
    precondition(scrubbed.count == bytes.count, "the file's length changed")
    if case let .patches(again)? = outcome(scrubbed) {
        var twice = scrubbed
        for patch in again { twice.replaceSubrange(Int(patch.offset) ..< Int(patch.offset) + patch.bytes.count, with: patch.bytes) }
        precondition(twice == scrubbed, "a scrubbed file still says where it was taken")
    }
}
