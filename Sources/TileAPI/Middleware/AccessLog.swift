import HTTPTransport
import POSIXSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One line per request — time, method, target, status, body bytes, microseconds, whether the tile cache
/// answered, and who asked when they signed in or came by a share link — formatted straight into a batch, which the log's own thread writes when 64 KiB are pending, at
/// least once a second, and on `flush()` at shutdown, so a line is never lost to SIGTERM and the hot path pays
/// for an uncontended lock and a copy, never a write to the file (an event loop touches no file). Only a batch
/// that the thread has let grow to 16 times that (a log on a stalled disk) is written by the thread recording,
/// which then waits on the file as nginx's workers do, so memory stays bounded. The general path's lines share
/// one batch; each event loop's fast path has a batch of its own (`makeShard`), so loops never wait for each
/// other here. Lines of different batches may reach the file out of time order by up to a second, as with
/// nginx's workers.
package final class AccessLog: Sendable {
    static let batchBytes = 64 << 10
    /// Pending bytes past which the recording thread writes the batch itself.
    static let stalledBytes = 16 * batchBytes

    /// One batch of lines and its writer.
    final class Shard: Sendable {
        /// Lines not yet written, and an empty buffer to swap in when they are handed to the writer: a full
        /// batch is moved out, written and given back, so no line costs an allocation.
        private struct Pending {
            var lines: [UInt8] = []
            var spare: [UInt8]? = []
            var stamp = SecondStamp.iso8601
            /// Whether the log's thread was told this batch is full.
            var told = false
        }

        private let pending: Locked<Pending>
        private let writer: Writer
        /// Wakes the log's thread.
        private let wake: @Sendable () -> Void

        fileprivate init(_ writer: Writer, wake: @escaping @Sendable () -> Void) {
            self.writer = writer
            self.wake = wake
            var initial = Pending()
            initial.lines.reserveCapacity(AccessLog.batchBytes + 4096)
            initial.spare!.reserveCapacity(AccessLog.batchBytes + 4096)
            pending = Locked(initial)
        }

        /// The line of one request, formatted straight into the batch.
        func record(method: UnsafeRawBufferPointer, target: UnsafeRawBufferPointer, status: Int, bodyBytes: Int, seconds: Double,
                    cache: RequestNotes.Cache, user: UnsafeRawBufferPointer? = nil) {
            let full = pending.withLock { p -> [UInt8]? in
                p.stamp.withCurrent { p.lines.append(contentsOf: $0) }
                p.lines.append(0x20)
                p.lines.append(contentsOf: method)
                p.lines.append(0x20)
                for byte in target { p.lines.append(byte < 0x20 || byte == 0x7F ? 0x3F : byte) } // no control bytes in the log
                p.lines.append(0x20)
                Self.append(status, to: &p.lines)
                p.lines.append(0x20)
                Self.append(bodyBytes, to: &p.lines)
                p.lines.append(0x20)
                Self.append(Int(seconds * 1_000_000), to: &p.lines)
                p.lines.append(contentsOf: "us ".utf8)
                p.lines.append(contentsOf: cache.rawValue.utf8)
                if let user {
                    p.lines.append(0x20)
                    for byte in user { p.lines.append(byte <= 0x20 || byte == 0x7F ? 0x3F : byte) }
                }
                p.lines.append(0x0A)
                if p.lines.count >= AccessLog.stalledBytes {
                    // The log's thread is stuck writing (it holds the spare): this thread writes behind it, and waits.
                    defer { p.lines = p.spare.take() ?? []; p.told = false }
                    return p.lines
                }
                if p.lines.count >= AccessLog.batchBytes && !p.told {
                    p.told = true
                    wake()
                }
                return nil
            }
            if let full { write(full) }
        }

        /// Writes whatever is pending.
        func flush() {
            let batch = pending.withLock { p -> [UInt8]? in
                guard !p.lines.isEmpty, let spare = p.spare.take() else { return nil }
                defer { p.lines = spare; p.told = false }
                return p.lines
            }
            if let batch { write(batch) }
        }

        /// Writes a batch, then keeps its buffer, emptied, as the next spare.
        private func write(_ batch: consuming [UInt8]) {
            var batch = batch
            writer.write(batch)
            batch.removeAll(keepingCapacity: true)
            pending.withLock { p in
                if p.spare == nil { p.spare = batch }
            }
        }

        /// Decimal digits of `value`, written in place.
        private static func append(_ value: Int, to line: inout [UInt8]) {
            if value < 0 { line.append(0x2D) }
            var n = value.magnitude, digits = 0, scratch = n
            repeat { digits += 1; scratch /= 10 } while scratch > 0
            let start = line.count
            line.append(contentsOf: repeatElement(UInt8(0x30), count: digits))
            for k in stride(from: digits - 1, through: 0, by: -1) {
                line[start + k] = UInt8(48 + n % 10)
                n /= 10
            }
        }
    }

    /// Writes whole batches to the log's descriptor, one at a time, so each reaches the file whole.
    fileprivate final class Writer: Sendable {
        private let fd: CInt
        private let writing = Locked<Void>(())

        init(fd: CInt) { self.fd = fd }

        func write(_ batch: [UInt8]) {
            writing.withLock { _ in
                batch.withUnsafeBytes { bytes in _ = try? Posix.writeAll(fd, bytes) }
            }
        }
    }

    private let writer: Writer
    /// The general path's batch.
    private let general: Shard
    /// Every batch, the general path's first.
    private let shards: Locked<[Shard]>
    /// Where the log's thread waits for a full batch or the next second.
    private let signal: Signal

    /// A full batch's call to the log's thread.
    private final class Signal: Sendable {
        let condition = ConditionLock()
        let raised = Atomic<Bool>(false)

        func raise() {
            raised.store(true, ordering: .releasing)
            condition.withLock { condition.broadcast() }
        }

        /// Returns when raised or at `deadline`, lowered.
        func wait(until deadline: Double) {
            condition.withLock {
                while !raised.load(ordering: .acquiring), condition.wait(until: deadline) {}
            }
            raised.store(false, ordering: .relaxed)
        }
    }

    /// Logs to `fd` (standard output by default); a background thread, living as long as the process (as the
    /// server's log does), writes each full batch and, every `interval` seconds, whatever is pending.
    init(fd: CInt = STDOUT_FILENO, interval: Double = 1) {
        writer = Writer(fd: fd)
        let signal = Signal()
        self.signal = signal
        general = Shard(writer, wake: signal.raise)
        shards = Locked([general])
        startDetachedThread { [self] in
            var due = MonotonicClock.seconds() + interval
            while true {
                signal.wait(until: due)
                let now = MonotonicClock.seconds()
                if now >= due { due = now + interval }
                flush()
            }
        }
    }

    /// A batch of its own for one event loop's lines.
    func makeShard() -> Shard {
        let shard = Shard(writer, wake: signal.raise)
        shards.withLock { $0.append(shard) }
        return shard
    }

    /// `user`: who asked (`RequestNotes.user`), written at the end of the line unless `-` (anonymous).
    func record(_ request: HTTPRequest, _ response: HTTPResponse, seconds: Double, cache: RequestNotes.Cache, user: String = "-") {
        var method = request.method, target = Self.shortened(request.target), user = user
        method.withUTF8 { method in
            target.withUTF8 { target in
                user.withUTF8 { user in
                    general.record(method: UnsafeRawBufferPointer(method), target: UnsafeRawBufferPointer(target), status: response.status.code,
                                   bodyBytes: response.bodyLength, seconds: seconds, cache: cache,
                                   user: user.count == 1 && user[0] == UInt8(ascii: "-") ? nil : UnsafeRawBufferPointer(user))
                }
            }
        }
    }

    /// `target` with each share token in its query (`share=`, `access_token=`) cut to its id (`share=s2.{id}.…`): a
    /// log line must not carry what opens the images, and logs travel further than the server.
    static func shortened(_ target: String) -> String {
        guard let question = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: question)...]
        guard query.contains("share=") || query.contains("token=") else { return target }
        let fields = query.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
            guard let equals = field.firstIndex(of: "="), Self.secretFields.contains(field[..<equals]) else { return String(field) }
            return field[...equals] + ShareToken.logged(field[field.index(after: equals)...])
        }
        return target[...question] + fields.joined(separator: "&")
    }

    /// Query fields that carry a token.
    static let secretFields: Set<Substring> = ["share", "access_token", "token"]

    /// Writes whatever is pending in every batch.
    package func flush() {
        for shard in shards.withLock({ $0 }) { shard.flush() }
    }
}
