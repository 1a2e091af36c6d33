#if canImport(Glibc)
import Glibc
#endif

/// The descriptor calls of the event loop, each through `syscall` (EINTR retried, errno typed). A call that
/// would block on a non-blocking descriptor answers nil instead of throwing.
package enum Posix {
    /// `read(2)`: bytes read (0 at end of stream), or nil when nothing is waiting.
    package static func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int? {
        try wouldBlockIsNil { () throws(SyscallError) in try syscall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) } }
    }

    /// `writev(2)`: bytes written, or nil when the socket buffer is full.
    package static func writev(_ fd: CInt, _ vectors: UnsafeBufferPointer<iovec>) throws(SyscallError) -> Int? {
        try wouldBlockIsNil { () throws(SyscallError) in try syscall("writev") { Glibc.writev(fd, vectors.baseAddress, CInt(vectors.count)) } }
    }

    /// `sendfile(2)` of up to `count` bytes of `file` from `offset` (advanced) to the socket: bytes sent, or nil
    /// when the socket buffer is full.
    package static func sendfile(_ socket: CInt, _ file: CInt, offset: inout Int, count: Int) throws(SyscallError) -> Int? {
        var position = off_t(offset)
        let sent = try wouldBlockIsNil { () throws(SyscallError) in
            try syscall("sendfile") { Glibc.sendfile(socket, file, &position, count) }
        }
        offset = Int(position)
        return sent
    }

    /// `write(2)` of all of `bytes` to a blocking descriptor (a log file or pipe), retrying short writes.
    package static func writeAll(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(SyscallError) {
        var done = 0
        while done < bytes.count {
            done += try syscall("write") { Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done) }
        }
    }

    /// `shutdown(2)`; a peer already gone is not an error worth reporting.
    package static func shutdown(_ fd: CInt, _ how: CInt) {
        _ = try? syscall("shutdown") { Glibc.shutdown(fd, how) }
    }

    /// `close(2)`, once: never retried, since on Linux the descriptor is released even when it fails.
    package static func close(_ fd: CInt) {
        _ = try? syscall("close", retryingEINTR: false) { Glibc.close(fd) }
    }

    /// `realpath(3)`: the absolute path with every link resolved, or nil when the path does not exist.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func wouldBlockIsNil(_ body: () throws(SyscallError) -> Int) throws(SyscallError) -> Int? {
        do { return try body() } catch {
            if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return nil }
            throw error
        }
    }
}
