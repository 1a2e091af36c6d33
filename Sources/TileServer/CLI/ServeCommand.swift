import ArgumentParser
import HTTPTransport
import ImageCodecs
import Logging
import ObjectStorage
import POSIXSupport
import Pyramid
import TileAPI

#if canImport(Glibc)
import Glibc
import Library
#endif

/// `tileserver serve [PATH ...]`: the HTTP server. Every option also reads `TILESERVER_<NAME>`; flags win.
struct ServeCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        let options = ServerConfiguration.settings.map { setting in
            "  \(setting.flag) (\(setting.variable))\n" + wrapped("\(setting.help) Default: \(setting.defaultText).", indent: 6)
        }
        return CommandConfiguration(
            commandName: "serve",
            abstract: "Serve images (files, or folders of JPEG, PNG, TIFF, JPEG 2000, HEIC, AVIF and WebP, recursively) over HTTP; with none, a built-in landscape.",
            discussion: "OPTIONS (each also read from its environment variable; a flag wins):\n" + options.joined(separator: "\n")
        )
    }

    @Argument(parsing: .allUnrecognized,
              help: "Image files or folders (walked recursively, watched for changes), and --NAME VALUE options. The first image is the default one.")
    var arguments: [String] = []

    /// The paths and the `--name value` (or `--name=value`) options among the arguments.
    static func split(_ arguments: [String]) throws -> (paths: [String], flags: [String: String]) {
        var paths: [String] = [], flags: [String: String] = [:]
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" {
                paths += rest
                break
            }
            guard argument.hasPrefix("--") else {
                paths.append(argument)
                continue
            }
            let option = argument.dropFirst(2)
            if let eq = option.firstIndex(of: "=") {
                flags[String(option[..<eq])] = String(option[option.index(after: eq)...])
            } else if let value = rest.popFirst() {
                flags[String(option)] = value
            } else {
                throw ConfigurationError(message: "\(argument) needs a value")
            }
        }
        return (paths, flags)
    }

    func run() throws {
        HTTPServer.prepareSignals()
        System.mapLargeAllocations(from: 4 << 20)
        try reportingFailure {
            let (paths, flags) = try Self.split(arguments)
            let config = try ServerConfiguration.resolve(environment: Environment.variables, flags: flags)
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardOutput(label: label)
                handler.logLevel = config.logLevel
                return handler
            }
            let logger = Logger(label: "tileserver")
            guard let addressing = S3Configuration.Addressing(rawValue: config.s3Addressing) else {
                throw ConfigurationError(message: "--s3-addressing must be auto, path or virtual, not '\(config.s3Addressing)'")
            }
            let storage = ObjectStorageSetup.make(for: paths + [config.storeDir], addressing: addressing,
                                                  timeout: config.objectTimeout, cacheBytes: config.objectCacheMB << 20,
                                                  prefetch: config.objectPrefetch)
            if let s3 = storage?.configuration {
                logger.info("object storage: \(s3.endpoint), region \(s3.region)")
            }
            // Made once: its limits carry the server's one store of JPEG entry indexes.
            var tileOptions = config.tileOptions
            tileOptions.files = ObjectStorageSetup.files(storage)
            let store = try config.storeDirectory.map { location -> TileStore in
                guard let shared = S3Location(location) else { return try TileStore(directory: location, budget: config.storeMB << 20) }
                guard let objects = storage?.objects else { throw ConfigurationError(message: "--store-dir \(location): not an object storage location (s3://bucket/prefix)") }
                return TileStore(objects: objects, location: shared)
            }
            // The structures of masters in object storage kept in the store are listed while the masters are: one
            // round trip for both, done before the first request rather than in its way.
            if let store { tileOptions.files.structures?.keep(in: store) }
            let loaded = try LibraryLoader.load(paths, options: tileOptions, objects: storage?.objects, titlesAsNames: config.titlesAsNames,
                                                logger: logger)
            let library = loaded.library
            let tiles = TileService(directory: library, options: tileOptions, store: store)
            library.setRoots(Dictionary(uniqueKeysWithValues: loaded.roots.roots.enumerated().map { ($0.offset, $0.element.path) }))
            let settings = config.accessSettings
            let access = try AccessControl(settings: settings, library: library, logger: logger)
            if access.isNeeded { access.watch() }
            let app = Application(options: config.api, tiles: tiles, library: library, logger: logger,
                                  viewer: try ViewerFiles.locate(config.publicDir, embedded: EmbeddedFiles(EmbeddedViewer.files)),
                                  access: access.isNeeded ? access : nil, objects: storage?.objects)
            let server = try HTTPServer(options: config.transport, responder: app, pools: app.pools, gauge: app.connections)
            server.start()
            let host = config.transport.host
            let shown = host == "0.0.0.0" || host == "::" || host.isEmpty ? "127.0.0.1" : host
            let url = shown.contains(":") ? "http://[\(shown)]:\(server.port)/" : "http://\(shown):\(server.port)/"
            if !loaded.roots.roots.isEmpty {
                let sync = LibrarySync(roots: loaded.roots, library: library, entered: loaded.folders)
                FolderWatcher(sync: sync, library: library, logger: logger, inotify: config.watch,
                              rescanInterval: config.rescanInterval).start()
            }
            library.search.start(library)
            let count = library.count
            print("tileserver: access \(access.summary)")
            print("tileserver: serving \(count) image\(count == 1 ? "" : "s") (default: \(library.firstID ?? "none")) on \(host):\(server.port)")
            print("tileserver: tile store \(store.map { S3Location.isRemote($0.directory) ? "\($0.directory) (shared; bounded by the bucket's lifecycle rule)" : "\($0.directory) (\(config.storeMB) MiB)" } ?? "off")")
            print("tileserver: open \(url)")
            fflush(nil)
            server.waitForShutdown { signal in logger.notice("signal \(signal): finishing requests in flight, then exiting") }
            app.accessLog?.flush()
            tileOptions.files.structures?.keepReads()
            store?.flush()
            logger.notice("stopped")
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
