/// How a file is laid out, as `tileserver info` reports it: its resolution levels, tiles, compression, samples and
/// colour profile. Only the header is read.
public struct SourceStructure: Sendable, Equatable {
    /// One resolution stored in the file: a page, SubIFD or wavelet reduction (one level for JPEG and PNG).
    package struct Level: Sendable, Equatable {
        package var width: Int
        package var height: Int
        /// The power of two it is reduced by.
        package var factor: Int
        /// Tile size; nil when the level is stored in strips or rows.
        package var tileWidth: Int?
        package var tileHeight: Int?
        package var compression: String
    }

    package var levels: [Level]
    /// Samples a pixel and bits a sample, as stored.
    package var samples: Int
    package var bitsPerSample: Int
    /// What happens to an embedded ICC profile: nil when there is none.
    package var profile: String?
    /// Anything else worth knowing (JPEG 2000 layers and progression order, a TIFF's other pages).
    package var notes: [String]

    init(levels: [Level], samples: Int, bitsPerSample: Int, profile: ColourTransform.Outcome?, notes: [String] = []) {
        self.levels = levels
        self.samples = samples
        self.bitsPerSample = bitsPerSample
        self.notes = notes
        switch profile {
        case nil: self.profile = nil
        case .convert?: self.profile = "embedded ICC profile, converted to sRGB"
        case .keep?: self.profile = "embedded ICC profile, kept (--colour keep)"
        case let .ignored(reason)?: self.profile = reason
        }
    }
}

extension JPEGSource {
    package var structure: SourceStructure {
        SourceStructure(levels: [.init(width: info.width, height: info.height, factor: 1, tileWidth: nil, tileHeight: nil,
                                       compression: info.progressive ? "jpeg (progressive)" : "jpeg (baseline)")],
                        samples: info.colorSpace == "gray" ? 1 : info.colorSpace == "cmyk" || info.colorSpace == "ycck" ? 4 : 3,
                        bitsPerSample: info.bitDepth, profile: colour)
    }
}

extension PNGSource {
    package var structure: SourceStructure {
        let samples = ["gray": 1, "gray-alpha": 2, "rgb": 3, "rgba": 4, "palette": 1][info.colorSpace] ?? info.channels
        return SourceStructure(levels: [.init(width: info.width, height: info.height, factor: 1, tileWidth: nil, tileHeight: nil,
                                              compression: info.progressive ? "deflate (Adam7 interlaced)" : "deflate")],
                               samples: samples, bitsPerSample: info.bitDepth, profile: colour)
    }
}

extension TIFFSource {
    package var structure: SourceStructure {
        let main = directories[0]
        let levels = self.levels.map { level -> SourceStructure.Level in
            let dir = directories.first { $0.offset == level.offset } ?? main
            return .init(width: level.width, height: level.height, factor: level.factor,
                         tileWidth: level.tiled ? Int(dir.tile_width) : nil, tileHeight: level.tiled ? Int(dir.tile_height) : nil,
                         compression: TIFFLevel.compression(dir))
        }
        let others = directories.count - levels.count
        var notes = [levels.count > 1 ? "pyramidal: \(levels.count) levels" : main.tile_width > 0 ? "tiled, one level" : "striped, \(main.rows_per_strip) rows a strip"]
        if directories.contains(where: { $0.subifd != 0 }) { notes.append("levels in SubIFDs") }
        if others > 0 { notes.append("\(others) other page\(others == 1 ? "" : "s") (thumbnails, masks or other images) not shown") }
        if main.direct == 0 { notes.append("read through libtiff's RGBA interface (\(TIFFLevel.colourSpace(main)))") }
        return SourceStructure(levels: levels, samples: Int(main.samples), bitsPerSample: Int(main.bits), profile: colour, notes: notes)
    }
}

extension JP2Source {
    package var structure: SourceStructure {
        let tiled = header.tiles > 1
        let levels = (0 ..< Int(header.resolutions)).map { r -> SourceStructure.Level in
            let scale = 1 << r
            let tileWidth: Int? = tiled ? (Int(header.tile_width) + scale - 1) / scale : nil
            let tileHeight: Int? = tiled ? (Int(header.tile_height) + scale - 1) / scale : nil
            return SourceStructure.Level(width: (info.width + scale - 1) / scale, height: (info.height + scale - 1) / scale,
                                         factor: scale, tileWidth: tileWidth, tileHeight: tileHeight,
                                         compression: header.high_throughput != 0 ? "htj2k" : "jpeg2000")
        }
        let orders = ["LRCP", "RLCP", "RPCL", "PCRL", "CPRL"]
        let order = orders.indices.contains(Int(header.progression)) ? orders[Int(header.progression)] : "unknown"
        let container = (header.high_throughput != 0 ? "HTJ2K (high-throughput code-blocks, decoded by whole tiles), " : "")
            + (header.codestream != 0 ? "bare code-stream" : "JP2 file")
        let tiles = "\(header.tiles) tile" + (header.tiles == 1 ? "" : "s")
        let layers = "\(header.layers) quality layer" + (header.layers == 1 ? "" : "s")
        return SourceStructure(levels: levels, samples: Int(header.components), bitsPerSample: Int(header.precision), profile: colour,
                               notes: [container, tiles, layers, "progression " + order])
    }
}
