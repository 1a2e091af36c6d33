#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor that closes itself: `open(2)` in, `close(2)` out.
package final class FileDescriptor: @unchecked Sendable {
    package let rawValue: CInt

    /// Opens `path` read-only with O_CLOEXEC.
    package init(readingAt path: String) throws(SyscallError) {
        rawValue = try syscall("open(\(path))") { open(path, O_RDONLY | O_CLOEXEC) }
    }

    /// An unnamed read-write file in `directory` that vanishes when closed: `open(O_TMPFILE)`, or
    /// `mkstemp(3)` then `unlink(2)` where the file system lacks O_TMPFILE.
    package init(anonymousIn directory: String) throws(SyscallError) {
        let tmpfile: CInt = 0o20000000 | O_DIRECTORY // __O_TMPFILE | O_DIRECTORY, not exported by Glibc
        if let fd = try? syscall("open(\(directory), O_TMPFILE)", { open(directory, tmpfile | O_RDWR | O_CLOEXEC, 0o600) }) {
            rawValue = fd
            return
        }
        var template = Array((directory + "/.raster-XXXXXX").utf8CString)
        rawValue = try template.withUnsafeMutableBufferPointer { buf throws(SyscallError) in
            let fd = try syscall("mkstemp(\(directory))") { mkstemp(buf.baseAddress!) }
            unlink(buf.baseAddress!)
            return fd
        }
    }

    package init(adopting fd: CInt) {
        rawValue = fd
    }

    /// `fstat(2)`: size in bytes and modification time in nanoseconds since 1970.
    package func status() throws(SyscallError) -> (size: Int64, modified: Int64) {
        var sb = stat()
        try syscall("fstat") { fstat(rawValue, &sb) }
        let stamp = FileStamp(sb)
        return (stamp.size, stamp.modified)
    }

    /// `pread(2)` of up to `count` bytes at `offset`.
    package func read(count: Int, at offset: Int64) throws(SyscallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let fd = rawValue
        let n = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SyscallError) in
                try syscall("pread") { pread(fd, buffer.baseAddress, count, off_t(offset)) }
            }
        }
        bytes.removeSubrange(try n.get()...)
        return bytes
    }

    /// `pwrite(2)` of all of `bytes` at `offset`.
    package func write(_ bytes: [UInt8], at offset: Int64) throws(SyscallError) {
        var done = 0
        let fd = rawValue
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                Result { () throws(SyscallError) in
                    try syscall("pwrite") { pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done)) }
                }
            }
            let written = try n.get()
            guard written > 0 else { throw SyscallError(call: "pwrite", errno: EIO) }
            done += written
        }
    }

    deinit {
        Posix.close(rawValue)
    }
}
