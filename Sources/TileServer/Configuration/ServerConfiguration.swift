import Logging
import POSIXSupport
import Pyramid

/// Every setting of `tileserver serve` and its default, in one place. Flags win over `TILESERVER_*`
/// environment variables, which win over these defaults.
struct ServerConfiguration: Sendable {
    var host = "0.0.0.0"
    var port = 8080
    var tileSize = 256
    var quality = 85
    var cacheMB = 256
    /// Directory for the disk tile cache; nil: no disk cache.
    var cacheDir: String?
    var diskCacheMB = 4096
    var maxZoom = 1.0
    var workers = System.coreCount
    var eventLoops = min(2, System.coreCount)
    /// The viewer folder; nil: the bundled `public/`.
    var publicDir: String?
    var logLevel = Logger.Level.info
    var accessLog = true
    var maxConnections = 10_000
    var tileMaxAge = 86_400
    var headerTimeout = 10.0
    var idleTimeout = 60.0
    var shutdownGrace = 10.0
    var maxPixels = ImageLimits.defaultMaxPixels
    var rasterDir = "/var/tmp"
    var rasterGB = 8
    /// Prefetch jobs waiting beyond this many are dropped.
    var prefetchQueue = 256

    /// The setting names as `--flag` and `TILESERVER_FLAG`, in the order the README lists them.
    static let environmentNames: [String] = [
        "host", "port", "tile-size", "quality", "cache-mb", "cache-dir", "disk-cache-mb", "max-zoom", "workers",
        "event-loops", "public", "log-level", "access-log", "max-connections", "tile-max-age", "header-timeout",
        "idle-timeout", "max-pixels", "raster-dir", "raster-gb",
    ]

    var tileOptions: TileOptions {
        TileOptions(tileSize: tileSize, quality: quality, cacheBytes: cacheMB << 20, rasterDirectory: rasterDir,
                    rasterBytes: rasterGB << 30, limits: ImageLimits(maxPixels: maxPixels))
    }

    /// Applies `TILESERVER_*` variables, then the flags that were given.
    static func resolve(environment: [String: String], flags: [String: String]) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        for name in environmentNames {
            let variable = "TILESERVER_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
            if let value = environment[variable] { try config.set(name, value, source: variable) }
        }
        for (name, value) in flags.sorted(by: { $0.key < $1.key }) { try config.set(name, value, source: "--" + name) }
        return config
    }

    private mutating func set(_ name: String, _ value: String, source: String) throws {
        func int(_ range: ClosedRange<Int>) throws -> Int {
            guard let n = Int(value), range.contains(n) else {
                throw ConfigurationError(message: "\(source) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
            return n
        }
        func double(_ range: ClosedRange<Double>) throws -> Double {
            guard let n = Double(value), range.contains(n) else {
                throw ConfigurationError(message: "\(source) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
            return n
        }
        switch name {
        case "host": host = value
        case "port": port = try int(0 ... 65535)
        case "tile-size": tileSize = try int(16 ... 4096)
        case "quality": quality = try int(1 ... 100)
        case "cache-mb": cacheMB = try int(0 ... 1 << 20)
        case "cache-dir": cacheDir = value.isEmpty ? nil : value
        case "disk-cache-mb": diskCacheMB = try int(1 ... 1 << 24)
        case "max-zoom": maxZoom = try double(0.01 ... 64)
        case "workers": workers = try int(1 ... 256)
        case "event-loops": eventLoops = try int(1 ... 64)
        case "public": publicDir = value
        case "log-level":
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw ConfigurationError(message: "\(source) must be one of trace, debug, info, notice, warning, error, critical")
            }
            logLevel = level
        case "access-log":
            switch value.lowercased() {
            case "1", "true", "on", "yes": accessLog = true
            case "0", "false", "off", "no": accessLog = false
            default: throw ConfigurationError(message: "\(source) must be on or off, not '\(value)'")
            }
        case "max-connections": maxConnections = try int(1 ... 1_000_000)
        case "tile-max-age": tileMaxAge = try int(0 ... 31_536_000)
        case "header-timeout": headerTimeout = try double(0.1 ... 3600)
        case "idle-timeout": idleTimeout = try double(0.1 ... 86400)
        case "max-pixels": maxPixels = try int(1 ... 1 << 40)
        case "raster-dir": rasterDir = value
        case "raster-gb": rasterGB = try int(1 ... 1 << 16)
        default: throw ConfigurationError(message: "unknown setting \(source)")
        }
    }
}

/// A setting with a value it cannot take.
struct ConfigurationError: Swift.Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
