import HTTPTransport
import POSIXSupport
import Pyramid
import ImageCodecs

#if canImport(Glibc)
import Glibc
#endif

/// Where the browser viewer's files come from: a copy compiled into the binary (the default, so the server runs
/// from any directory with nothing beside it; the executable embeds `public/` and hands it over), or a folder
/// named with `--public` for working on the viewer.
package enum ViewerFiles: Sendable {
    case embedded(EmbeddedFiles)
    case folder(String)

    /// The `--public` folder when one is configured, else `embedded`.
    package static func locate(_ configured: String?, embedded: @autoclosure () -> EmbeddedFiles) throws(APIError) -> ViewerFiles {
        guard let configured else { return .embedded(embedded()) }
        guard let path = Posix.realPath(configured), access(path + "/index.html", R_OK) == 0 else {
            throw .notFound("--public \(configured): no such directory with an index.html")
        }
        return .folder(path)
    }
}

/// Files held in memory by their path below `public/`, each with an ETag made from its bytes.
package final class EmbeddedFiles: Sendable {
    private let files: [String: (bytes: [UInt8], etag: String)]

    package init(_ files: [String: [UInt8]]) {
        self.files = files.mapValues { bytes in (bytes, "\"e-\(FNV1a(bytes).hex16)\"") }
    }

    /// The file at `relative`, with its ETag.
    func file(_ relative: String) -> (bytes: [UInt8], etag: String)? {
        files[relative]
    }

    /// Whether `relative` names a folder (some file lies below it).
    func isFolder(_ relative: String) -> Bool {
        let prefix = relative.isEmpty || relative.hasSuffix("/") ? relative : relative + "/"
        return files.keys.contains { $0.hasPrefix(prefix) }
    }
}
