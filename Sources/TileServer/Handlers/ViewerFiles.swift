import Pyramid

/// Where the browser viewer's files come from: compiled into the binary (the default, so the server runs from any
/// directory with nothing beside it), or a folder named with `--public` for working on the viewer.
enum ViewerFiles: Sendable, Equatable {
    case embedded
    case folder(String)

    /// The embedded file at `relative` (a path below `public/`), with an ETag made from its bytes.
    static func embeddedFile(_ relative: String) -> (bytes: [UInt8], etag: String)? {
        embeddedWithTags[relative]
    }

    /// Whether `relative` names a folder of the embedded viewer (some file lies below it).
    static func isEmbeddedFolder(_ relative: String) -> Bool {
        let prefix = relative.isEmpty || relative.hasSuffix("/") ? relative : relative + "/"
        return EmbeddedViewer.files.keys.contains { $0.hasPrefix(prefix) }
    }

    private static let embeddedWithTags: [String: (bytes: [UInt8], etag: String)] =
        EmbeddedViewer.files.mapValues { bytes in (bytes, "\"e-\(FNV1a(bytes).hex16)\"") }
}
