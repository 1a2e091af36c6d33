// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "tileserver",
    // What a program embedding the server's imaging calls is `public`: opening images and decoding rectangles
    // (ImageCodecs), the zoom maths (TileGeometry), serving tiles (Pyramid) and a live library (Library). TileAPI
    // is a product only for the fuzz package (Fuzz/), which builds it with -enable-testing and reaches it, and the
    // targets below it, through `@testable import`: nothing in it, nor in HTTPTransport, POSIXSupport or
    // ObjectStorage, is `public`.
    products: [
        .executable(name: "tileserver", targets: ["TileServer"]),
        .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
        .library(name: "TileGeometry", targets: ["TileGeometry"]),
        .library(name: "Pyramid", targets: ["Pyramid"]),
        .library(name: "Library", targets: ["Library"]),
        .library(name: "TileAPI", targets: ["TileAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CLCMS",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]
        ),
        .systemLibrary(
            name: "CTIFF",
            pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"])]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]
        ),
        .systemLibrary(
            name: "COpenJPEG",
            pkgConfig: "libopenjp2",
            providers: [.apt(["libopenjp2-7-dev"])]
        ),
        .systemLibrary(
            name: "CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]
        ),
        // HMAC-SHA256 of share links and secure random bytes (secrets, session ids): OpenSSL's libcrypto, which
        // adds 5 MB to the image where swift-crypto's Foundation adds 48 (ICU).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // HTTP for object storage (S3 and compatible stores): libcurl signs requests with AWS SigV4 itself and keeps
        // connections alive per handle; a well-kept client, where an S3 SDK would bring a runtime of its own.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // HEIC/HEIF and AVIF photos: libheif reads the boxes, assembles grids and applies rotation, with Debian's
        // HEVC (libde265) and AV1 (libaom) decoders behind it; its libaom plugin also encodes AVIF tiles.
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        // Whole-slide images (Aperio SVS, Hamamatsu NDPI, MIRAX, Leica SCN, Philips TIFF, Ventana BIF) through
        // OpenSlide: levels, regions, properties and associated images.
        .systemLibrary(
            name: "COpenSlide",
            pkgConfig: "openslide",
            providers: [.apt(["libopenslide-dev"])]
        ),
        .systemLibrary(name: "CEpoll"),
        .target(
            name: "CImageIO",
            dependencies: ["CJPEG", "CPNG", "CLCMS", "CTIFF", "CWebP", "COpenJPEG", "CHeif", "COpenSlide"]
        ),
        // HTTP for object storage: libcurl behind a few `tsio_http_` calls, apart from the codecs.
        .target(name: "CHTTPClient", dependencies: ["CCurl"]),
        .target(name: "POSIXSupport"),
        // Object storage (S3 and compatible stores) over CHTTPClient's libcurl calls: locations, credentials the way
        // AWS tools take them, signed requests with bounded retries, listings, and the store's health.
        .target(name: "ObjectStorage", dependencies: ["CHTTPClient", "POSIXSupport"]),
        // Image sources, decoders and encoders, pixel buffers, resampling, colour and metadata over CImageIO. It
        // takes plain values (format, quality, rectangles) and knows nothing of tiles, pyramids or the library.
        // The plain values codecs and geometry share: rectangles of pixels and output formats. A leaf.
        .target(name: "ImageValues"),
        .target(name: "ImageCodecs", dependencies: ["ImageValues", "CImageIO", "POSIXSupport"]),
        // Pyramid geometry (levels, tiles, DeepZoom numbering) and the zoom maths of a viewport: Sendable values, no I/O.
        .target(name: "TileGeometry", dependencies: ["ImageValues"]),
        // The tile service over the codecs: cache, decode passes, the tile store, regions and view images.
        .target(
            name: "Pyramid",
            dependencies: ["TileGeometry", "ImageCodecs", "ObjectStorage", "POSIXSupport"]
        ),
        // The image library: command-line paths and folders scanned and watched (inotify), ids and versions, the
        // loader's policy and the built-in landscape. It tells the tile service what changed through
        // Pyramid's ImageChanges; the pyramid looks images up through ImageDirectory and never imports it.
        .target(
            name: "Library",
            dependencies: [
                "Pyramid",
                "ImageCodecs",
                "ObjectStorage",
                "POSIXSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The HTTP/1.1 server: reactor, connections, parsing and framing, middleware, worker pools. It knows
        // nothing of images: importing Pyramid here does not build.
        .target(name: "HTTPTransport", dependencies: ["POSIXSupport", "CEpoll"]),
        .executableTarget(name: "EmbedViewerTool"),
        .plugin(name: "EmbedViewer", capability: .buildTool(), dependencies: ["EmbedViewerTool"]),
        // Routes, handlers, the protocols (DeepZoom, XYZ, IIIF Image and Presentation), JSON and the middlewares.
        .target(
            name: "TileAPI",
            dependencies: [
                "HTTPTransport",
                "CArgon2",
                "COpenSSL",
                "Library",
                "ObjectStorage",
                "Pyramid",
                "TileGeometry",
                "ImageCodecs",
                "POSIXSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // main, the command line and the configuration; the viewer (public/) is compiled in here.
        .executableTarget(
            name: "TileServer",
            dependencies: [
                "TileAPI",
                "HTTPTransport",
                "Library",
                "ObjectStorage",
                "Pyramid",
                "TileGeometry",
                "ImageCodecs",
                "POSIXSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["EmbedViewer"]
        ),
        .testTarget(name: "CImageIOTests", dependencies: ["CImageIO"]),
        .testTarget(name: "POSIXSupportTests", dependencies: ["POSIXSupport"]),
        .testTarget(name: "ObjectStorageTests", dependencies: ["ObjectStorage", "POSIXSupport", "TestSupport"]),
        // Test images made by scripts/make-fixtures.sh, libvips' reference decodes, pixel comparisons.
        .target(name: "ImageTestSupport", dependencies: ["ImageCodecs"], path: "Tests/ImageTestSupport"),
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "ImageTestSupport", "POSIXSupport", "TestSupport"]),
        .testTarget(name: "LibraryTests", dependencies: ["Library", "Pyramid", "ImageCodecs", "ImageTestSupport", "POSIXSupport"]),
        .testTarget(name: "TileGeometryTests", dependencies: ["TileGeometry", "ImageCodecs"]),
        .testTarget(name: "PyramidTests", dependencies: ["TileGeometry", "Pyramid", "ImageCodecs", "ImageTestSupport", "POSIXSupport", "TestSupport"]),
        // Paths and fuzz inputs the test targets share.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport", "POSIXSupport", "TestSupport"]),
        .testTarget(name: "TileAPITests", dependencies: ["TileAPI", "Library", "TileGeometry", "HTTPTransport", "Pyramid", "ImageCodecs", "TestSupport"]),
        .testTarget(name: "TileServerTests", dependencies: ["TileServer", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
