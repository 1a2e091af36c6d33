import CImageIO

/// One resolution of a TIFF image: its first page, or a page or SubIFD holding the same image reduced by `factor`.
struct TIFFLevel: Sendable, Equatable {
    /// Where its directory is.
    let offset: UInt64
    let width: Int
    let height: Int
    /// 1 for the image itself, else the power of two it is reduced by.
    let factor: Int
    /// Rows a tile or strip holds: reads end bands on multiples of it.
    let chunkHeight: Int
    /// Columns a tile holds; 0 when striped.
    let tileWidth: Int
    var tiled: Bool { tileWidth > 0 }

    init(_ dir: tsio_tiff_dir, factor: Int) {
        offset = dir.offset
        width = Int(dir.width)
        height = Int(dir.height)
        self.factor = factor
        tileWidth = Int(dir.tile_width)
        chunkHeight = Int(dir.tile_width > 0 ? dir.tile_height : dir.rows_per_strip)
    }

    /// The levels of the image `dirs[0]` is: the directories that hold it reduced by a power of two (each side
    /// within a pixel of the reduced size, whichever way it was rounded), with its channels, not a mask; one per
    /// factor, a tiled one first; by increasing factor.
    static func levels(of dirs: [tsio_tiff_dir]) -> [TIFFLevel] {
        let main = dirs[0]
        let w = Int(main.width), h = Int(main.height)
        var found = [TIFFLevel(main, factor: 1)]
        let candidates = dirs.dropFirst().filter { $0.readable != 0 && $0.subfile_type & 4 == 0 && $0.channels == main.channels }
        for dir in candidates.sorted(by: { ($0.tile_width > 0 ? 0 : 1) < ($1.tile_width > 0 ? 0 : 1) }) {
            let dw = Int(dir.width), dh = Int(dir.height)
            guard dw > 0, dh > 0, dw < w else { continue }
            // The power of two whose reduction this is: each side within a pixel either way.
            guard let factor = (1 ..< 40).lazy.map({ 1 << $0 }).first(where: { f in
                abs(dw * f - w) < 2 * f && abs(dh * f - h) < 2 * f
            }), !found.contains(where: { $0.factor == factor }) else { continue }
            found.append(TIFFLevel(dir, factor: factor))
        }
        return found.sorted { $0.factor < $1.factor }
    }

    /// A short description of a directory for messages: "2,048 × 1,024 tiled 256 × 256, JPEG, 3 × 8-bit".
    static func describe(_ dir: tsio_tiff_dir) -> String {
        let layout = dir.tile_width > 0 ? "tiled \(dir.tile_width) × \(dir.tile_height)" : "striped \(dir.rows_per_strip) rows"
        return "\(Int(dir.width).grouped) × \(Int(dir.height).grouped) \(layout), \(compression(dir)), "
            + "\(dir.samples) × \(dir.bits)-bit \(colourSpace(dir))"
    }

    /// libtiff's name for the directory's compression.
    static func compression(_ dir: tsio_tiff_dir) -> String {
        String(cString: tsio_tiff_compression_name(dir.compression))
    }

    /// The colour space the directory's samples are in, in ImageInfo's words.
    static func colourSpace(_ dir: tsio_tiff_dir) -> String {
        let alpha = dir.alpha != 0
        switch dir.photometric {
        case 0, 1: return alpha ? "gray-alpha" : "gray"
        case 2: return alpha ? "rgba" : "rgb"
        case 3: return "palette"
        case 5: return "cmyk"
        case 6: return "ycbcr"
        case 8, 9, 10: return "lab"
        default: return "photometric-\(dir.photometric)"
        }
    }
}
