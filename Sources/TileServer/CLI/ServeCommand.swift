import ArgumentParser
import Logging
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// `tileserver serve [PATH ...]`: the HTTP server. Every option also reads `TILESERVER_<NAME>`; flags win.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images (files, or directories of .jpg/.jpeg/.png) over HTTP; with none, a built-in landscape."
    )

    @Argument(help: "Image files or directories (not recursive). The first image is the default one.")
    var paths: [String] = []

    @Option(help: "Address to listen on (default 0.0.0.0).") var host: String?
    @Option(help: "Port (default 8080; 0 picks a free one).") var port: String?
    @Option(help: "Tile edge in pixels (default 256).") var tileSize: String?
    @Option(help: "JPEG quality of tiles (default 85).") var quality: String?
    @Option(help: "In-memory tile cache budget in MiB (default 256).") var cacheMb: String?
    @Option(help: "Directory for a disk tile cache (default: none).") var cacheDir: String?
    @Option(help: "Disk tile cache budget in MiB (default 4096).") var diskCacheMb: String?
    @Option(help: "Largest zoom, in screen pixels per image pixel (default 1.0: native).") var maxZoom: String?
    @Option(help: "Render threads (default: CPU count).") var workers: String?
    @Option(help: "Event loop threads (default: 2, at most the CPU count).") var eventLoops: String?
    @Option(name: .customLong("public"), help: "Viewer folder (default: the bundled public/).") var publicDir: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical (default info).") var logLevel: String?
    @Option(help: "One log line per request: on or off (default on).") var accessLog: String?
    @Option(help: "Open connections beyond which new ones get 503 (default 10000).") var maxConnections: String?
    @Option(help: "Cache-Control max-age of tiles in seconds (default 86400).") var tileMaxAge: String?
    @Option(help: "Seconds for a complete request head before 408 (default 10).") var headerTimeout: String?
    @Option(help: "Seconds an idle keep-alive connection stays open (default 60).") var idleTimeout: String?
    @Option(help: "Refuse images with more pixels (default 2000000000).") var maxPixels: String?
    @Option(help: "Directory for decode passes (default /var/tmp).") var rasterDir: String?
    @Option(help: "Disk budget of decode passes in GiB (default 8).") var rasterGb: String?

    private var flags: [String: String] {
        var flags: [String: String] = [:]
        let given: [(String, String?)] = [
            ("host", host), ("port", port), ("tile-size", tileSize), ("quality", quality), ("cache-mb", cacheMb),
            ("cache-dir", cacheDir), ("disk-cache-mb", diskCacheMb), ("max-zoom", maxZoom), ("workers", workers),
            ("event-loops", eventLoops), ("public", publicDir), ("log-level", logLevel), ("access-log", accessLog),
            ("max-connections", maxConnections), ("tile-max-age", tileMaxAge), ("header-timeout", headerTimeout),
            ("idle-timeout", idleTimeout), ("max-pixels", maxPixels), ("raster-dir", rasterDir), ("raster-gb", rasterGb),
        ]
        for case let (name, value?) in given { flags[name] = value }
        return flags
    }

    func run() throws {
        HTTPServer.prepareSignals()
        do {
            let environment = Environment.variables
            let config = try ServerConfiguration.resolve(environment: environment, flags: flags)
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardOutput(label: label)
                handler.logLevel = config.logLevel
                return handler
            }
            let logger = Logger(label: "tileserver")
            let images = try ImageCatalog.load(paths, options: config.tileOptions, logger: logger)
            let diskCache = try config.cacheDir.map { try DiskTileCache(directory: $0, budget: config.diskCacheMB << 20) }
            let tiles = TileService(images: images, options: config.tileOptions, diskCache: diskCache)
            let publicRoot = try PublicFolder.locate(config.publicDir)
            let app = Application(config: config, tiles: tiles, logger: logger, publicRoot: publicRoot)
            let server = try HTTPServer(app: app)
            server.start()
            let shown = config.host == "0.0.0.0" || config.host == "::" || config.host.isEmpty ? "127.0.0.1" : config.host
            let url = shown.contains(":") ? "http://[\(shown)]:\(server.port)/" : "http://\(shown):\(server.port)/"
            print("tileserver: serving \(images.count) image\(images.count == 1 ? "" : "s") (default: \(images[0].id)) on \(config.host):\(server.port)")
            print("tileserver: open \(url)")
            fflush(nil)
            server.waitForShutdown()
            logger.notice("stopped")
        } catch {
            printError("tileserver: \(error)")
            throw ExitCode(1)
        }
    }
}

/// The process environment.
enum Environment {
    static var variables: [String: String] {
        var out: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { out[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            pointer += 1
        }
        return out
    }
}
