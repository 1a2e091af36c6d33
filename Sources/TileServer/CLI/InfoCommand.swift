import ArgumentParser
import Pyramid
import TileAPI
import ImageCodecs
import TileGeometry

/// `tileserver info IMAGE...`: one JSON object per image from its header alone.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print format, upright size, channels, orientation, pyramid levels and the file's structure (its stored levels, tiles, compression, bit depth and profile) of images as JSON lines."
    )

    @Argument(help: "JPEG, PNG, TIFF, JPEG 2000, HEIC, AVIF or WebP files.")
    var images: [String]

    @Option(help: "Refuse images with more pixels than this.")
    var maxPixels: Int = ImageLimits.defaultMaxPixels

    func run() throws {
        let files = ObjectStorageSetup.files(ObjectStorageSetup.make(for: images))
        var failed = false
        for path in images {
            do {
                let source = try ImageOpener.open(path, limits: ImageLimits(maxPixels: maxPixels), files: files)
                print(Self.describe(source).serialized)
            } catch {
                printError("tileserver: \(error)")
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    static func describe(_ source: any ImageSource) -> JSONValue {
        let info = source.info
        let maxLevel = LevelMath.maxLevel(width: info.width, height: info.height)
        return .object([
            ("path", .string(source.path)),
            ("format", .string(info.format.rawValue)),
            ("width", .int(info.width)),
            ("height", .int(info.height)),
            ("channels", .int(info.channels)),
            ("colorSpace", .string(info.colorSpace)),
            ("bitDepth", .int(info.bitDepth)),
            ("progressive", .bool(info.progressive)),
            ("orientation", .int(info.orientation.rawValue)),
            ("restartInterval", .int(info.restartInterval)),
            ("fileSize", .int(Int(info.fileSize))),
            ("maxLevel", .int(maxLevel)),
            ("levels", .int(maxLevel + 1)),
            ("structure", structure(source.structure)),
        ] + (info.cutShort.map { [("warning", .string($0.warning))] } ?? []))
    }

    /// The file's own layout: what a request at each shrink reads.
    static func structure(_ s: SourceStructure) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("samples", .int(s.samples)),
            ("bitsPerSample", .int(s.bitsPerSample)),
            ("levels", .array(s.levels.map { level in
                var fields: [(String, JSONValue)] = [("width", .int(level.width)), ("height", .int(level.height)),
                                                     ("factor", .int(level.factor)), ("compression", .string(level.compression))]
                if let w = level.tileWidth, let h = level.tileHeight { fields += [("tileWidth", .int(w)), ("tileHeight", .int(h))] }
                return .object(fields)
            })),
        ]
        if let profile = s.profile { members.append(("profile", .string(profile))) }
        if !s.notes.isEmpty { members.append(("notes", .array(s.notes.map { .string($0) }))) }
        return .object(members)
    }
}
