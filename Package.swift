// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "tileserver",
    products: [
        .executable(name: "tileserver", targets: ["TileServer"]),
        .library(name: "Pyramid", targets: ["Pyramid"]),
        .library(name: "POSIXSupport", targets: ["POSIXSupport"]),
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
        .systemLibrary(name: "CEpoll"),
        .target(
            name: "CImageIO",
            dependencies: ["CJPEG", "CPNG"]
        ),
        .target(name: "POSIXSupport"),
        .target(
            name: "Pyramid",
            dependencies: ["CImageIO", "POSIXSupport"]
        ),
        .executableTarget(name: "EmbedViewerTool"),
        .plugin(name: "EmbedViewer", capability: .buildTool(), dependencies: ["EmbedViewerTool"]),
        .executableTarget(
            name: "TileServer",
            dependencies: [
                "Pyramid",
                "POSIXSupport",
                "CEpoll",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["EmbedViewer"]
        ),
        .testTarget(name: "CImageIOTests", dependencies: ["CImageIO"]),
        .testTarget(name: "POSIXSupportTests", dependencies: ["POSIXSupport"]),
        .testTarget(name: "PyramidTests", dependencies: ["Pyramid", "POSIXSupport"]),
        .testTarget(name: "TileServerTests", dependencies: ["TileServer"]),
    ],
    swiftLanguageModes: [.v6]
)
