import ArgumentParser
import POSIXSupport
import Pyramid
import ImageCodecs
import Library

extension BuildOptions.Layout: ExpressibleByArgument {}

extension ImageFormat: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(fileExtension: argument)
    }
}

/// `tileserver build IMAGE --out DIR`: the whole pyramid on disk, as `vips dzsave` writes it.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Write every tile of an image's pyramid (DeepZoom or XYZ layout); the output appears only when complete."
    )

    @Argument(help: "A JPEG, PNG, TIFF, JPEG 2000, HEIC, AVIF or WebP file.")
    var image: String

    @Option(help: "Output directory.")
    var out: String

    @Option(help: "dzi (NAME.dzi + NAME_files/L/x_y.EXT) or xyz (L/x/y.EXT).")
    var layout: BuildOptions.Layout = .dzi

    @Option(help: "Tile edge in pixels (16 to 4096).")
    var tileSize: Int = 256

    @Option(help: "Pixels each tile extends past its interior edges (0 to tile size / 2).")
    var overlap: Int = 0

    @Option(help: "jpg, png, webp or avif.")
    var format: ImageFormat = .jpeg

    @Option(help: "JPEG quality, 1 to 100 (WebP's and AVIF's are mapped to look the same).")
    var quality: Int = 85

    @Option(help: "convert: an RGB image's ICC profile is converted to sRGB; keep: the pixels are left and every tile embeds the profile.")
    var colour: ColourChoice = .convert

    @Option(help: "Encoder threads (default: CPU count).")
    var threads: Int = System.coreCount

    @Flag(help: "No progress output.")
    var quiet = false

    func validate() throws {
        guard (16 ... 4096).contains(tileSize) else { throw ValidationError("--tile-size must be from 16 to 4096") }
        guard (0 ... tileSize / 2).contains(overlap) else { throw ValidationError("--overlap must be from 0 to \(tileSize / 2)") }
        guard (1 ... 100).contains(quality) else { throw ValidationError("--quality must be from 1 to 100") }
        guard (1 ... 256).contains(threads) else { throw ValidationError("--threads must be from 1 to 256") }
    }

    func run() throws {
        let files = ObjectStorageSetup.files(ObjectStorageSetup.make(for: [image]))
        let started = MonotonicClock.seconds()
        try reportingFailure {
            let source = try ImageOpener.open(image, limits: ImageLimits(keepsColourProfiles: colour == .keep), files: files)
            // The server shows the rows of a file cut short; a pyramid built to keep is refused instead.
            if let cut = source.info.cutShort {
                let size = source.info.fileSize
                throw ImageSourceError.truncated(path: image, format: .jpeg, atByte: size, fileSize: size, row: cut.rows, rows: cut.of)
            }
            let options = BuildOptions(layout: layout, tileSize: tileSize, overlap: overlap, format: format,
                                       quality: quality, threads: threads)
            let builder = PyramidBuilder(source: source, options: options)
            let reporter = ProgressReporter(quiet: quiet)
            let name = ImageNaming.stem(of: image)
            try builder.build(into: out, name: name) { done, total in reporter.report(done: done, total: total) }
            if !quiet {
                let seconds = ((MonotonicClock.seconds() - started) * 10).rounded() / 10
                printError("wrote \(builder.geometry.totalTiles) tiles of \(name) to \(out) in \(seconds) s")
            }
        }
    }
}

/// `--colour` of `build`, as `tileserver serve --colour` takes it.
enum ColourChoice: String, ExpressibleByArgument {
    case convert, keep
}
