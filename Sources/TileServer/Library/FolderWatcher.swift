import Logging
import POSIXSupport
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// Turns inotify events into calls on `LibrarySync`, which holds the library's rules (what a change in a folder
/// means, when a file is complete, when to rescan), and watches the folders it says to. Without inotify (or
/// where events are missed: network file systems, a full queue) the full rescan every `--rescan-interval`
/// seconds keeps the library in step. One background thread owns all of this state.
final class FolderWatcher: @unchecked Sendable {
    private let sync: LibrarySync
    private let library: ImageLibrary
    private let logger: Logger
    private let rescanInterval: Double
    /// Quiet time after an event before the folder is listed again, so a burst is one listing.
    private let settle = 0.05
    private var inotify: CInt = -1
    private var pathOf: [CInt: String] = [:]
    private var watchOf: [String: CInt] = [:]
    private var warnedLimit = false

    init(sync: LibrarySync, library: ImageLibrary, logger: Logger, inotify useInotify: Bool, rescanInterval: Double) {
        self.sync = sync
        self.library = library
        self.logger = logger
        self.rescanInterval = rescanInterval
        if useInotify {
            inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if inotify < 0 {
                logger.warning("inotify is unavailable (\(String(cString: strerror(errno)))); relying on rescans every \(rescanInterval) s")
            }
        }
    }

    /// Watches the folders the library holds, then runs on its own thread.
    func start() {
        for path in sync.folderPaths { watch(path) }
        guard inotify >= 0 || rescanInterval > 0 else { return }
        startDetachedThread { [self] in run() }
    }

    private func run() {
        var nextRescan = MonotonicClock.seconds() + (rescanInterval > 0 ? rescanInterval : .infinity)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let now = MonotonicClock.seconds()
            var wait = min(1.0, nextRescan - now)
            if sync.hasPendingChange { wait = min(wait, settle) }
            if inotify >= 0 {
                var pfd = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, Int32(max(0, wait) * 1000))
                if ready > 0 {
                    drain(&buffer)
                    // Keep gathering a burst, but never hold a change back longer than a quarter second.
                    if sync.pendingFor < 0.25 { continue }
                }
            } else {
                usleep(UInt32(max(0, wait) * 1_000_000))
            }
            let later = MonotonicClock.seconds()
            let rescanDue = later >= nextRescan
            if rescanDue { nextRescan = later + (rescanInterval > 0 ? rescanInterval : .infinity) }
            let before = library.generation
            let step = sync.step(rescanDue: rescanDue)
            for path in step.forgotten { unwatch(path) }
            for path in step.entered where watchOf[path] == nil { watch(path) }
            if let change = step.change {
                report(change)
            } else if library.generation != before {
                logger.info("library rescanned: \(library.count) images")
            }
        }
    }

    private func drain(_ buffer: inout [UInt8]) {
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = String(decoding: buffer[nameStart ..< nameStart + length].prefix { $0 != 0 }, as: UTF8.self)
                handle(wd: wd, mask: mask, name: name)
                offset = nameStart + length
            }
        }
    }

    /// One event, as a call on the library's rules.
    private func handle(wd: CInt, mask: UInt32, name: String) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 { return sync.eventsLost() }
        if mask & UInt32(IN_IGNORED) != 0, let gone = pathOf.removeValue(forKey: wd) {
            // The folder was deleted or moved away (or unmounted): list it, and so drop it, next round.
            watchOf[gone] = nil
            return sync.folderChanged(gone)
        }
        guard let folderPath = pathOf[wd], !name.isEmpty, !name.hasPrefix(".") else { return }
        let path = folderPath + "/" + name
        if mask & UInt32(IN_ISDIR) != 0 {
            if mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0 { sync.folderChanged(folderPath) }
            return
        }
        guard ImageNaming.imageFormat(of: name) != nil else { return }
        if mask & UInt32(IN_CREATE) != 0 {
            sync.fileCreated(path)
        } else if mask & UInt32(IN_MODIFY) != 0 {
            sync.fileWritten(path)
        } else {
            sync.fileFinished(path)
        }
    }

    private func watch(_ path: String) {
        guard inotify >= 0 else { return }
        let mask = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_ATTRIB | IN_MODIFY | IN_ONLYDIR)
        let wd = inotify_add_watch(inotify, path, mask)
        guard wd >= 0 else {
            if !warnedLimit {
                warnedLimit = true
                logger.warning("cannot watch \(path) (\(String(cString: strerror(errno)))); changes there show at the next rescan")
            }
            return
        }
        if let old = pathOf[wd] { watchOf[old] = nil }   // one folder reached by a new path
        pathOf[wd] = path
        watchOf[path] = wd
    }

    private func unwatch(_ path: String) {
        guard let wd = watchOf.removeValue(forKey: path) else { return }
        inotify_rm_watch(inotify, wd)
        pathOf[wd] = nil
    }

    private func report(_ change: ImageLibrary.Change) {
        guard !change.isEmpty else { return }
        logger.info("library: \(change.added.count) added, \(change.removed.count) removed, \(change.replaced.count) replaced; \(library.count) images")
    }
}
