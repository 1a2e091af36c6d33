#if canImport(Glibc)
import Glibc
#endif

/// An inotify instance (non-blocking, close-on-exec): folders watched by path, their events read in batches.
/// Owned by one thread (the library's watcher), which is why it is not `Sendable`.
package final class Inotify {
    /// What a watch reports, and what an event says happened (inotify's `IN_*` bits).
    package struct Events: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        package static let created = Events(rawValue: UInt32(IN_CREATE))
        package static let modified = Events(rawValue: UInt32(IN_MODIFY))
        package static let closedAfterWriting = Events(rawValue: UInt32(IN_CLOSE_WRITE))
        package static let movedFrom = Events(rawValue: UInt32(IN_MOVED_FROM))
        package static let movedTo = Events(rawValue: UInt32(IN_MOVED_TO))
        package static let deleted = Events(rawValue: UInt32(IN_DELETE))
        package static let attributes = Events(rawValue: UInt32(IN_ATTRIB))
        /// Watch only if the path is a directory.
        package static let onlyDirectory = Events(rawValue: UInt32(IN_ONLYDIR))
        /// The event is about a sub-directory of the watched one.
        package static let isDirectory = Events(rawValue: UInt32(IN_ISDIR))
        /// The watch is gone: its folder was deleted, moved away or unmounted.
        package static let watchRemoved = Events(rawValue: UInt32(IN_IGNORED))
        /// The kernel's queue overflowed: events were lost, and everything watched must be listed again.
        package static let overflowed = Events(rawValue: UInt32(IN_Q_OVERFLOW))
    }

    /// One event: the watch it came from, what happened, and the name in the watched folder ("" for the folder).
    package struct Event: Sendable {
        package let watch: CInt
        package let events: Events
        package let name: String
    }

    private let fd: CInt
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

    package init() throws(SyscallError) {
        fd = try syscall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    deinit { close(fd) }

    /// Starts watching `path`; the descriptor events from it carry. The same folder reached by two paths gets the
    /// same descriptor.
    package func watch(_ path: String, for events: Events) throws(SyscallError) -> CInt {
        try syscall("inotify_add_watch(\(path))") { inotify_add_watch(fd, path, events.rawValue) }
    }

    /// Stops a watch (a descriptor already gone is no error: there is nothing left to stop).
    package func unwatch(_ watch: CInt) {
        inotify_rm_watch(fd, watch)
    }

    /// Waits up to `seconds` for an event; true when one is ready (false on a signal, which the caller's loop
    /// simply goes round).
    package func wait(seconds: Double) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, Int32(max(0, seconds) * 1000)) > 0
    }

    /// Every event queued now, in order.
    package func read() -> [Event] {
        var events: [Event] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return events }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = String(decoding: buffer[nameStart ..< nameStart + length].prefix { $0 != 0 }, as: UTF8.self)
                events.append(Event(watch: wd, events: Events(rawValue: mask), name: name))
                offset = nameStart + length
            }
        }
    }
}
