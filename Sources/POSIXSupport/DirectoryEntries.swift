#if canImport(Glibc)
import Glibc
#endif

/// The names in one directory (`opendir`/`readdir`), without `.` and `..`, with the type `readdir` reports
/// (`DT_REG`, `DT_DIR`, `DT_LNK`, or `DT_UNKNOWN` on file systems that do not say). Names that are not UTF-8
/// are left out. Nil when the directory cannot be read.
package enum DirectoryEntries {
    package struct Entry: Sendable {
        package let name: String
        package let type: Int32
    }

    package static func list(_ directory: String) -> [Entry]? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let raw = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let name = String(validating: raw, as: UTF8.self), name != ".", name != ".." else { continue }
            entries.append(Entry(name: name, type: Int32(entry.pointee.d_type)))
        }
        return entries
    }
}
