import HTTPTransport
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// One line per request — time, method, target, status, body bytes, microseconds, whether the tile cache
/// answered — formatted straight into bytes and written in batches: when 64 KiB are pending, at least once a
/// second by its own thread, and on `flush()` at shutdown, so a line is never lost to SIGTERM and the hot path
/// pays for a lock and a copy, not a system call.
public final class AccessLog: Sendable {
    static let batchBytes = 64 << 10

    private let fd: CInt
    private let pending = Locked<[UInt8]>([])
    /// Serialises writes, so batches reach the file in order.
    private let writing = Locked<Void>(())

    /// Logs to `fd` (standard output by default); a background thread, living as long as the process (as the
    /// server's log does), flushes every `interval` seconds.
    init(fd: CInt = STDOUT_FILENO, interval: Double = 1) {
        self.fd = fd
        let micros = useconds_t(interval * 1_000_000)
        startDetachedThread { [self] in
            while true {
                flush()
                usleep(micros)
            }
        }
    }

    func record(_ request: HTTPRequest, _ response: HTTPResponse, seconds: Double, cache: RequestNotes.Cache) {
        var line = [UInt8]()
        line.reserveCapacity(request.target.utf8.count + 64)
        line += HTTPDate.iso8601Now().utf8
        line.append(0x20)
        line += request.method.utf8
        line.append(0x20)
        for byte in request.target.utf8 { line.append(byte < 0x20 || byte == 0x7F ? 0x3F : byte) } // no control bytes in the log
        line.append(0x20)
        Self.append(response.status.code, to: &line)
        line.append(0x20)
        Self.append(response.bodyLength, to: &line)
        line.append(0x20)
        Self.append(Int(seconds * 1_000_000), to: &line)
        line += "us ".utf8
        line += cache.rawValue.utf8
        line.append(0x0A)
        let full = pending.withLock { buffer -> [UInt8]? in
            buffer += line
            guard buffer.count >= Self.batchBytes else { return nil }
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        if let full { write(full) }
    }

    /// Writes whatever is pending.
    public func flush() {
        let batch = pending.withLock { buffer -> [UInt8] in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        if !batch.isEmpty { write(batch) }
    }

    private func write(_ batch: [UInt8]) {
        writing.withLock { _ in
            batch.withUnsafeBytes { bytes in _ = try? Posix.writeAll(fd, bytes) }
        }
    }

    private static func append(_ value: Int, to line: inout [UInt8]) {
        if value < 0 { line.append(0x2D) }
        var n = value.magnitude
        var digits: [UInt8] = []
        repeat {
            digits.append(UInt8(48 + n % 10))
            n /= 10
        } while n > 0
        line += digits.reversed()
    }
}
