#if canImport(Glibc)
import Glibc
#endif

/// A file's size and modification time (nanoseconds since 1970): what tells that a source file changed since its
/// header was read. An object in object storage adds a hash of its ETag (`tag`), which changes with its content.
package struct FileStamp: Equatable, Sendable {
    package let size: Int64
    package let modified: Int64
    package let tag: UInt64

    package init(size: Int64, modified: Int64, tag: UInt64 = 0) {
        self.size = size
        self.modified = modified
        self.tag = tag
    }

    init(_ sb: stat) {
        self.init(size: Int64(sb.st_size), modified: Int64(sb.st_mtim.tv_sec) * 1_000_000_000 + Int64(sb.st_mtim.tv_nsec))
    }

    /// One `stat(2)` of `path` (links followed); nil when there is nothing to stat.
    package static func of(_ path: String) -> FileStamp? {
        var sb = stat()
        return stat(path, &sb) == 0 ? FileStamp(sb) : nil
    }
}
