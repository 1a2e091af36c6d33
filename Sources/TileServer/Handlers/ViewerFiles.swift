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
        EmbeddedViewer.files.mapValues { bytes in (bytes, "\"e-\(String(fnv1a(bytes), radix: 16))\"") }

    /// 64-bit FNV-1a: a content fingerprint for ETags, not a security hash.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
