import ArgumentParser

/// The `tileserver` command: subcommands for inspecting, serving and prebuilding image pyramids.
struct TileServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tileserver",
        abstract: "A tile server for huge JPEG and PNG photos: DeepZoom, IIIF and XYZ tiles made on demand.",
        subcommands: [ServeCommand.self, InfoCommand.self, BuildCommand.self, DecodeCommand.self, FirstViewCommand.self, HealthCheckCommand.self]
    )
}

TileServerCommand.main()
