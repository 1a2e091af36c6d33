import ArgumentParser
import Pyramid
import TileAPI

/// `tileserver info IMAGE...`: one JSON object per image from its header alone.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print format, upright size, channels, orientation and pyramid levels of images as JSON lines."
    )

    @Argument(help: "JPEG or PNG files.")
    var images: [String]

    @Option(help: "Refuse images with more pixels than this.")
    var maxPixels: Int = ImageLimits.defaultMaxPixels

    func run() throws {
        var failed = false
        for path in images {
            do {
                let source = try ImageOpener.open(path, limits: ImageLimits(maxPixels: maxPixels))
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
        ])
    }
}
