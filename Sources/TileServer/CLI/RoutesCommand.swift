import ArgumentParser
import Library
import Logging
import Pyramid
import TileAPI

/// `tileserver routes`: the route table, one JSON object a line (name, pattern, access kind, the capture naming
/// the image). What the e2e leak matrix is generated from; not for everyday use.
struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes",
        abstract: "Print the route table as JSON lines: each route's pattern and what it names (for tests and audits).",
        shouldDisplay: false
    )

    func run() throws {
        let options = TileOptions()
        let library = ImageLibrary(images: [], options: options)
        let app = Application(options: APIOptions(), tiles: TileService(directory: library, options: options), library: library,
                              logger: Logger(label: "tileserver-routes"), viewer: .embedded(EmbeddedFiles([:])))
        print(app.routeTable, terminator: "")
    }
}
