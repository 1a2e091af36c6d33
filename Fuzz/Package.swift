// swift-tools-version:5.4
// libFuzzer targets. A separate package because SwiftPM renames `main` in packages with tools version 5.5 and
// later, which clashes with libFuzzer's own. Built and run by scripts/fuzz.sh:
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
// ServerParsers drives the server's pure parsers from the HTTPTransport and TileAPI libraries; -enable-testing
// lets it reach the internal ones (`@testable import`) without making them public.
import PackageDescription

let package = Package(
    name: "TileServerFuzz",
    dependencies: [
        .package(name: "tileserver", path: ".."),
    ],
    targets: [
        // TileAPI brings the targets below it (HTTPTransport, ObjectStorage, Library, Pyramid…), whose modules
        // ServerParsers imports; none of them is public, so it reaches them with `@testable import`.
        .target(name: "ServerParsers", dependencies: [
            .product(name: "TileAPI", package: "tileserver"),
        ]),
        .executableTarget(name: "FuzzHTTPParser", dependencies: ["ServerParsers"]),
        .executableTarget(name: "FuzzRequestURLs", dependencies: ["ServerParsers"]),
        // Access control's parsers: the access file, share tokens, cookies and forms, the users file, address ranges.
        .executableTarget(name: "FuzzAccess", dependencies: ["ServerParsers"]),
        // Object storage's parsers: ListObjectsV2 XML, ~/.aws files, HTTP dates, s3:// locations.
        .executableTarget(name: "FuzzObjectStorage", dependencies: ["ServerParsers"]),
        // One target for every image format: the corpus (Fuzz/Corpus/jpeg, png, tiff, jp2, webp, heic or avif) steers it.
        .executableTarget(name: "FuzzDecoders", dependencies: [.product(name: "ImageCodecs", package: "tileserver")]),
    ]
)
