import CEpoll
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// One client connection, owned by one event loop thread: bytes received and not yet parsed, responses
/// queued and not yet written, and the timestamps the timeouts need.
final class Connection {
    let id: UInt64
    let fd: CInt
    /// Received bytes; `consumed` of them are already parsed.
    var input: [UInt8] = []
    var consumed = 0
    /// Queued output chunks; `written` bytes of the first are already sent.
    var output: [Chunk] = []
    var written = 0

    /// Bytes to write, or a file body to `sendfile`.
    enum Chunk {
        case bytes([UInt8])
        case file(FileBody)

        var count: Int {
            switch self {
            case let .bytes(bytes): bytes.count
            case let .file(file): file.length
            }
        }
    }
    var outputBytes = 0
    /// A request is with the render pool; later pipelined requests wait so answers stay in order.
    var busy = false
    var closeAfterFlush = false
    var wantsWrite = false
    /// When the current request's first byte arrived (or the connection opened), while its head is incomplete.
    var headerStarted: Double?
    var lastActivity: Double
    /// Set once the last response is written and the write side shut: read and discard until EOF or then.
    var lingerDeadline: Double?
    /// Refused for the connection cap: not counted among open connections.
    var refused = false

    init(id: UInt64, fd: CInt, now: Double) {
        self.id = id
        self.fd = fd
        lastActivity = now
        headerStarted = now
        input.reserveCapacity(4096)
    }

    var hasUnparsedInput: Bool { consumed < input.count }

    /// Drops parsed bytes once they are most of the buffer.
    func compact() {
        if consumed == input.count {
            input.removeAll(keepingCapacity: true)
            consumed = 0
        } else if consumed > 65536 && consumed * 2 > input.count {
            input.removeFirst(consumed)
            consumed = 0
        }
    }

    func enqueue(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        output.append(.bytes(chunk))
        outputBytes += chunk.count
    }

    func enqueue(_ file: FileBody) {
        guard file.length > 0 else { return }
        output.append(.file(file))
        outputBytes += file.length
    }

    /// Writes queued chunks (byte chunks with `writev`, files with `sendfile`) until done or the socket is
    /// full. Returns false on a fatal error.
    func flush() -> Bool {
        while !output.isEmpty {
            let result: Result<Int?, SyscallError>
            if case let .file(file) = output[0] {
                var offset = written
                result = Result { () throws(SyscallError) in
                    try Posix.sendfile(fd, file.descriptor.rawValue, offset: &offset, count: min(file.length - written, 1 << 20))
                }
                if case .success(0) = result { return false } // the file shrank under us: the response cannot finish
            } else {
                result = writeBytes()
            }
            guard case let .success(count) = result else { return false }
            guard var sent = count else { return true } // the socket is full: wait for EPOLLOUT
            outputBytes -= sent
            while sent > 0 {
                let left = output[0].count - written
                if sent >= left {
                    sent -= left
                    output.removeFirst()
                    written = 0
                } else {
                    written += sent
                    sent = 0
                }
            }
        }
        return true
    }

    /// One `writev` of the leading byte chunks (up to 64), pinned while it runs.
    private func writeBytes() -> Result<Int?, SyscallError> {
        var vectors = [iovec]()
        vectors.reserveCapacity(min(output.count, 64))
        return withExtendedLifetime(output) {
            for (i, chunk) in output.prefix(64).enumerated() {
                guard case let .bytes(bytes) = chunk else { break }
                bytes.withUnsafeBytes { raw in
                    let skip = i == 0 ? written : 0
                    vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + skip), iov_len: raw.count - skip))
                }
            }
            return vectors.withUnsafeBufferPointer { vectors in
                Result { () throws(SyscallError) in try Posix.writev(fd, vectors) }
            }
        }
    }
}
