#if canImport(Glibc)
import Glibc
#endif

/// Small settings files read whole and written whole: the access file, the users file, the share-link key and
/// list. A write goes to a temporary name in the same folder, is synced, then renamed over the old one, so a
/// reader sees the old file or the new, never half of one.
package enum SmallFile {
    /// The largest file read (a guard against reading something that is not a settings file).
    package static let maxBytes = 4 << 20

    /// The file's bytes (refused past `maxBytes`).
    package static func read(_ path: String) throws(SyscallError) -> [UInt8] {
        let file = try FileDescriptor(readingAt: path)
        let size = try file.status().size
        guard size <= Int64(maxBytes) else { throw SyscallError(call: "read(\(PathText.lastComponent(of: path)))", errno: EFBIG) }
        return try file.read(count: Int(size), at: 0)
    }

    /// Writes `bytes` as the file at `path` with permissions `mode`, all at once (temporary name, sync, rename).
    package static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(SyscallError) {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let name = PathText.lastComponent(of: path)
        let fd = try syscall("open(\(name))") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        var failure: SyscallError?
        do throws(SyscallError) {
            let written: SyscallError? = bytes.withUnsafeBytes { buffer in
                do throws(SyscallError) { try Posix.writeAll(fd, buffer) } catch { return error }
                return nil
            }
            if let written { throw written }
            _ = try syscall("fchmod(\(name))") { fchmod(fd, mode) }
            _ = try syscall("fsync(\(name))") { fsync(fd) }
        } catch {
            failure = error
        }
        Posix.close(fd)
        if failure == nil {
            do throws(SyscallError) { _ = try syscall("rename(\(name))") { rename(temporary, path) } } catch { failure = error }
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }
}
