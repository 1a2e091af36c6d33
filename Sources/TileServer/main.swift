import ArgumentParser
import TileAPI

/// The `tileserver` command: subcommands for inspecting, serving and prebuilding image pyramids.
struct TileServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tileserver",
        abstract: "A tile server for huge photos (JPEG, PNG, TIFF, JPEG 2000, HEIC, AVIF, WebP): DeepZoom, IIIF and XYZ tiles made on demand.",
        version: TileServerVersion.text,
        subcommands: [ServeCommand.self, InfoCommand.self, BuildCommand.self, DecodeCommand.self, FirstViewCommand.self, HealthCheckCommand.self,
                      UserCommand.self, ShareCommand.self, RoutesCommand.self]
    )
}

CryptoLibrary.keepUntilExit()
TileServerCommand.main()
