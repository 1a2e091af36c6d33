#if canImport(Glibc)
import Glibc
#endif

/// Small settings files read whole and written whole: the access file, the users file, the share-link key and
/// list. A write goes to a temporary name in the same folder, is synced, then renamed over the old one, so a
/// reader sees the old file or the new, never half of one.
public enum SmallFile {
    /// The largest file read (a guard against reading something that is not a settings file).
    public static let maxBytes = 4 << 20

    /// The file's bytes.
    public static func read(_ path: String) throws(SyscallError) -> [UInt8] {
        let fd = try syscall("open(\(PathText.lastComponent(of: path)))") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { Posix.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw SyscallError(call: "read(\(PathText.lastComponent(of: path)))", errno: errno) }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            if bytes.count > maxBytes { throw SyscallError(call: "read(\(PathText.lastComponent(of: path)))", errno: EFBIG) }
        }
    }

    /// Writes `bytes` as the file at `path` with permissions `mode`, all at once (temporary name, sync, rename).
    public static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(SyscallError) {
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
