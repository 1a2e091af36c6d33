import HTTPTransport
import POSIXSupport
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// Where the browser viewer's files come from: compiled into the binary (the default, so the server runs from any
/// directory with nothing beside it), or a folder named with `--public` for working on the viewer.
public enum ViewerFiles: Sendable, Equatable {
    case embedded
    case folder(String)

    /// The `--public` folder when one is configured (for working on the viewer), else the copy compiled in.
    public static func locate(_ configured: String?) throws(APIError) -> ViewerFiles {
        guard let configured else { return .embedded }
        guard let path = Posix.realPath(configured), access(path + "/index.html", R_OK) == 0 else {
            throw .notFound("--public \(configured): no such directory with an index.html")
        }
        return .folder(path)
    }

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
