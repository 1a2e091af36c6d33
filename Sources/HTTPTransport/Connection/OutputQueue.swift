import CEpoll
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Bytes and files queued for one socket, written in order: byte chunks with `writev`, files with `sendfile`,
/// until done or the socket is full.
struct OutputQueue {
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

    private var chunks: [Chunk] = []
    /// Bytes of the first chunk already sent.
    private var written = 0
    /// Bytes queued and not yet sent.
    private(set) var bytes = 0

    var isEmpty: Bool { chunks.isEmpty }

    mutating func append(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        chunks.append(.bytes(chunk))
        bytes += chunk.count
    }

    mutating func append(_ file: FileBody) {
        guard file.length > 0 else { return }
        chunks.append(.file(file))
        bytes += file.length
    }

    /// Writes queued chunks until done or the socket is full. Returns false on a fatal error.
    mutating func flush(to fd: CInt) -> Bool {
        while !chunks.isEmpty {
            let result: Result<Int?, SyscallError>
            if case let .file(file) = chunks[0] {
                var offset = written
                result = Result { () throws(SyscallError) in
                    try Posix.sendfile(fd, file.descriptor.rawValue, offset: &offset, count: min(file.length - written, 1 << 20))
                }
                if case .success(0) = result { return false } // the file shrank under us: the response cannot finish
            } else {
                result = writeBytes(to: fd)
            }
            guard case let .success(count) = result else { return false }
            guard var sent = count else { return true } // the socket is full: wait for EPOLLOUT
            bytes -= sent
            while sent > 0 {
                let left = chunks[0].count - written
                if sent >= left {
                    sent -= left
                    chunks.removeFirst()
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
    private func writeBytes(to fd: CInt) -> Result<Int?, SyscallError> {
        var vectors = [iovec]()
        vectors.reserveCapacity(min(chunks.count, 64))
        return withExtendedLifetime(chunks) {
            for (i, chunk) in chunks.prefix(64).enumerated() {
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
