import HTTPTransport
import Logging
import POSIXSupport
import Pyramid
import TileAPI
import ImageCodecs
import ObjectStorage

#if canImport(Glibc)
import Glibc
#endif

/// Every setting of `tileserver serve` and its default, in one place. Flags win over `TILESERVER_*`
/// environment variables, which win over these defaults. `settings` declares each one once (name, range,
/// help); the command line, the environment, validation and the help text all come from it.
struct ServerConfiguration: Sendable {
    /// Listening, loops, connection limits and timeouts (defaults in `TransportOptions`).
    var transport = TransportOptions()
    /// Zoom limit, tile max-age, access log, pools (defaults in `APIOptions`).
    var api = APIOptions()
    var tileSize = Self.tiles.tileSize
    var quality = Self.tiles.quality
    /// What passes store and tile URLs without an extension get.
    var tileFormat = Self.tiles.format
    var cacheMB = Self.tiles.cacheBytes >> 20
    /// Directory of the persistent tile store; `off`: none.
    var storeDir = ServerConfiguration.defaultStoreDirectory
    var storeMB = 10240
    /// The viewer folder; nil: the bundled `public/`.
    var publicDir: String?
    var logLevel = Logger.Level.info
    var maxPixels = ImageLimits.defaultMaxPixels
    var maxPyramidPixels = ImageLimits.defaultMaxPyramidPixels
    /// Keep RGB files' colour profiles (embedded in every output) instead of converting to sRGB.
    var keepColourProfiles = false
    var titlesAsNames = true
    var rasterDir = Self.tiles.rasterDirectory
    var renderMemoryMB = Self.tiles.renderBytes >> 20
    var indexMemoryMB = EntryIndexes.defaultBudget >> 20
    var renderQueue = Self.tiles.renderQueue
    var renderWait = Self.tiles.renderWait
    /// Watch served folders with inotify.
    var watch = true
    /// Seconds between full rescans of the served paths; 0: never.
    var rescanInterval = 10.0
    /// How a bucket is named in URLs to object storage (`S3Configuration.Addressing`).
    var s3Addressing = S3Configuration.Addressing.auto.rawValue
    var objectCacheMB = 256
    var objectPrefetch = true
    var objectTimeout = 10.0
    /// Who may see what (defaults in `AccessSettings`).
    var access = AccessSettings()
    /// `/metrics` for these addresses only; empty: anyone.
    var metricsFrom: [AddressRange] = AccessSettings().metricsFrom ?? []
    var sessionHours = Double(AccessSettings().sessionSeconds) / 3600

    /// The tile service's defaults, which the settings above start from (declared once, in `TileOptions`).
    private static let tiles = TileOptions()

    /// The settings in the order the README lists them.
    static let settings: [Setting] = [
        .text("host", \.transport.host, "Address to listen on."),
        .integer("port", \.transport.port, 0 ... 65535, "Port (0 picks a free one)."),
        .integer("tile-size", \.tileSize, 16 ... 4096, "Tile edge in pixels."),
        .integer("quality", \.quality, 1 ... 100, "Quality of JPEG tiles and images; WebP's and AVIF's are mapped to look the same (WebPQuality, AVIFQuality)."),
        .format("tile-format", \.tileFormat,
                "jpeg, webp, avif or png: what the tile store keeps, DeepZoom descriptors name and tile URLs without an extension get (images with alpha are stored as PNG instead of JPEG). Requests naming another format are made from the image."),
        .integer("cache-mb", \.cacheMB, 0 ... 1 << 20, "In-memory tile cache budget in MiB."),
        .text("store-dir", \.storeDir,
              "Directory of the persistent tile store, where every tile a decode pass cuts is kept across restarts; or s3://bucket/prefix, a store in object storage shared by every replica (bounded by the bucket's lifecycle rule, not --store-mb); off: none (tiles then live in the memory cache only and are decoded again when evicted)."),
        .integer("store-mb", \.storeMB, 1 ... 1 << 30, "Tile store budget in MiB; least recently used tiles go first."),
        .switch("publish-location", \.api.publishLocation,
                "Publish where photos were taken (their EXIF GPS position) in the API, IIIF manifests (navPlace) and the viewer's info panel: on or off."),
        .switch("slide-labels", \.api.slideLabels,
                "Serve whole-slide images' label and macro (they often carry a patient's name or number) when there is no access file: on or off. With --access, a folder's slide_labels = true decides."),
        .number("max-zoom", \.api.maxZoom, 0.01 ... 64, "Largest zoom, in screen pixels per image pixel (1: native)."),
        .integer("workers", \.api.workers, 1 ... 256, "Render threads, and decode passes of different images that run at once.",
                 shownDefault: "the CPU count, \(ServerConfiguration().api.workers) here"),
        .integer("event-loops", \.transport.eventLoops, 1 ... 64, "Event loop threads.",
                 shownDefault: "2, at most the CPU count: \(ServerConfiguration().transport.eventLoops) here"),
        .optionalText("public", \.publicDir, "Viewer folder served instead of the copy compiled into the binary (for working on the viewer)."),
        .logLevel("log-level", \.logLevel, "trace, debug, info, notice, warning, error or critical."),
        .switch("access-log", \.api.accessLog, "One log line per request: on or off."),
        .integer("max-connections", \.transport.maxConnections, 1 ... 1_000_000, "Open connections beyond which new ones get 503."),
        .integer("tile-max-age", \.api.tileMaxAge, 0 ... 31_536_000, "Cache-Control max-age of tiles in seconds."),
        .number("header-timeout", \.transport.headerTimeout, 0.1 ... 3600, "Seconds for a complete request head before 408."),
        .number("idle-timeout", \.transport.idleTimeout, 0.1 ... 86400, "Seconds an idle keep-alive connection stays open."),
        .integer("max-pixels", \.maxPixels, 1 ... 1 << 40,
                 "Refuse images decoded in passes (JPEG, PNG, striped or flat TIFF) with more pixels: their decode costs their area."),
        .integer("max-pyramid-pixels", \.maxPyramidPixels, 1 ... 1 << 40,
                 "Refuse images read from their own levels (tiled pyramidal TIFF, JPEG 2000) with more pixels."),
        .choice("colour", \.keepColourProfiles, ("convert", "keep"),
                "convert: RGB images with an ICC profile are converted to sRGB; keep: their pixels are left as they are and every tile and image embeds the profile (gray and CMYK files are converted either way)."),
        .choice("names", \.titlesAsNames, ("file", "title"),
                "title: a photo's own title (XMP dc:title, IPTC Object Name) is its name in listings, search results, manifests and the viewer, and sorts it by name; file: its file name, always (the file name is in the info panel either way)."),
        .text("raster-dir", \.rasterDir, "Directory for scratch files (outputs too large for memory are spooled there, unlinked)."),
        .integer("render-memory-mb", \.renderMemoryMB, 16 ... 1 << 20,
                 "Pixel memory in MiB for region, view and IIIF images and whole decodes together; larger outputs are made in bands."),
        .integer("index-memory-mb", \.indexMemoryMB, 1 ... 1 << 20,
                 "Memory in MiB for the entry indexes that let regions of large baseline JPEGs be decoded without the rows above them; least recently used go first."),
        .integer("render-queue", \.renderQueue, 0 ... 100_000, "Requests that may wait for render memory; more get 503."),
        .number("render-wait", \.renderWait, 0.1 ... 3600, "Seconds a request waits for render memory before 503."),
        .switch("watch", \.watch, "Follow files added, removed or replaced in served folders as they happen (inotify): on or off."),
        .number("rescan-interval", \.rescanInterval, 0 ... 86400,
                "Seconds between full rescans of the served paths, for changes no event reports (network file systems), and between listings of s3:// paths; 0: never."),
        .text("s3-addressing", \.s3Addressing,
              "auto, path or virtual: how requests to object storage name the bucket (auto: path style for AWS_ENDPOINT_URL and dotted bucket names, virtual-host style for AWS). Where the store is and who we are come from \(S3Configuration.summary)."),
        .integer("object-cache-mb", \.objectCacheMB, 1 ... 1 << 20,
                 "Memory in MiB for the blocks of masters read from object storage (ranged GETs of 256 KiB, up to 2 MiB while a decode pass reads on); least recently used go first."),
        .switch("object-prefetch", \.objectPrefetch,
                "Read ahead of viewers: in a store far away (its quick GETs take 8 ms or more), after a tile of a pyramidal TIFF the tiles around it and the next two finer levels' under it are fetched in the background; and what the process before read of TIFF masters (kept in the tile store as it stopped) is taken at start. Within a quarter of --object-cache-mb: on or off."),
        .number("object-timeout", \.objectTimeout, 0.1 ... 3600,
                "Seconds one try of a request to object storage may take; an outage is tried 3 times (0.1 and 0.2 s apart), then answered 503 with Retry-After."),
        .optionalText("access", \.access.accessFile,
                      "Access file (TOML): which folders are public, restricted to groups, hidden, or public only up to a size (docs/security.md); re-read when it changes. None: every image is public."),
        .optionalText("users", \.access.usersFile, "Users file, managed with `tileserver user`: who can sign in at /auth/login."),
        .optionalText("secret-file", \.access.secretFile,
                      "Key of share links (`tileserver share`), made with mode 0600 if missing; their list is kept beside it (FILE.shares)."),
        .addresses("trusted-proxies", \.access.trustedProxies,
                   "Addresses or ranges of proxies whose --user-header and --groups-header are believed (single sign-on) and whose X-Forwarded-Proto: https makes cookies Secure."),
        .header("user-header", \.access.userHeader, "Header in which a trusted proxy names the signed-in user (e.g. X-Remote-User)."),
        .header("groups-header", \.access.groupsHeader, "Header in which a trusted proxy lists the user's groups, comma-separated."),
        .origins("auth-origins", \.access.authOrigins,
                 "Viewer origins (scheme://host[:port], comma-separated) the IIIF token service gives access tokens to; listing any makes the session cookie SameSite=None; Secure, so their frames can use it (HTTPS only).",
                 shownDefault: "the server's own origin"),
        .origin("public-url", \.api.publicURL,
                "The address clients reach the server at (scheme://host[:port]): the base of IIIF ids and manifests. None: as each request names the server (Host, or a trusted proxy's X-Forwarded-Host)."),
        .addresses("metrics-from", \.metricsFrom, "Addresses or ranges that may read /metrics.", shownDefault: "anyone"),
        .number("session-hours", \.sessionHours, 0.01 ... 8760, "Hours a sign-in lasts."),
    ]

    /// Access control's settings, with the few that are declared apart from them.
    var accessSettings: AccessSettings {
        var settings = access
        settings.metricsFrom = metricsFrom.isEmpty ? nil : metricsFrom
        settings.sessionSeconds = max(1, Int(sessionHours * 3600))
        return settings
    }

    var tileOptions: TileOptions {
        TileOptions(tileSize: tileSize, quality: quality, format: tileFormat, cacheBytes: cacheMB << 20, rasterDirectory: rasterDir,
                    passes: api.workers, passEncoders: min(2, api.workers), limits: ImageLimits(maxPixels: maxPixels, maxPyramidPixels: maxPyramidPixels,
                    maxDecoderMemory: ImageLimits.defaultMaxDecoderMemory, entryIndexPixels: ImageLimits.defaultEntryIndexPixels,
                    keepsColourProfiles: keepColourProfiles, indexes: EntryIndexes(budget: indexMemoryMB << 20)),
                    renderBytes: renderMemoryMB << 20, renderQueue: renderQueue, renderWait: renderWait)
    }

    /// The store's directory, or nil when it is off.
    var storeDirectory: String? { storeDir == "off" ? nil : storeDir }

    /// `$XDG_CACHE_HOME/tileserver`, else `$HOME/.cache/tileserver`, else `/var/tmp/tileserver-store`.
    static var defaultStoreDirectory: String {
        let variable = { (name: String) in getenv(name).map { String(cString: $0) } }
        if let cache = variable("XDG_CACHE_HOME"), cache.hasPrefix("/") { return cache + "/tileserver" }
        if let home = variable("HOME"), home.hasPrefix("/"), home != "/" { return home + "/.cache/tileserver" }
        return "/var/tmp/tileserver-store"
    }

    /// Applies `TILESERVER_*` variables, then the flags that were given (by setting name, without `--`).
    static func resolve(environment: [String: String], flags: [String: String]) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        for setting in settings {
            if let value = environment[setting.variable] { try setting.apply(&config, value, setting.variable) }
        }
        for (name, value) in flags.sorted(by: { $0.key < $1.key }) {
            guard let setting = settings.first(where: { $0.name == name }) else {
                throw ConfigurationError(message: "unknown option --\(name); see tileserver serve --help")
            }
            try setting.apply(&config, value, "--" + name)
        }
        if config.api.slideLabels, config.access.accessFile != nil {
            throw ConfigurationError(message: "--slide-labels is for a server without an access file; with --access, write slide_labels = true in the table of each folder whose slide labels may be shown")
        }
        return config
    }
}

/// A setting with a value it cannot take.
struct ConfigurationError: Swift.Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
