import Logging
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Turns inotify events into calls on `LibrarySync`, which holds the library's rules (what a change in a folder
/// means, when a file is complete, when to rescan), and watches the folders it says to. Without inotify (or
/// where events are missed: network file systems, a full queue) the full rescan every `--rescan-interval`
/// seconds keeps the library in step. One background thread owns all of this state.
package final class FolderWatcher: @unchecked Sendable {
    private let sync: LibrarySync
    private let library: ImageLibrary
    private let logger: Logger
    private let rescanInterval: Double
    /// Quiet time after an event before the folder is listed again, so a burst is one listing.
    private let settle = 0.05
    private var inotify: Inotify?
    private var pathOf: [CInt: String] = [:]
    private var watchOf: [String: CInt] = [:]
    private var warnedLimit = false

    package init(sync: LibrarySync, library: ImageLibrary, logger: Logger, inotify useInotify: Bool, rescanInterval: Double) {
        self.sync = sync
        self.library = library
        self.logger = logger
        self.rescanInterval = rescanInterval
        if useInotify {
            do { inotify = try Inotify() } catch {
                logger.warning("inotify is unavailable (\(error)); relying on rescans every \(rescanInterval) s")
            }
        }
    }

    /// Watches the folders the library holds, then runs on its own thread.
    package func start() {
        for path in sync.folderPaths { watch(path) }
        guard inotify != nil || rescanInterval > 0 else { return }
        startDetachedThread { [self] in run() }
    }

    private func run() {
        var nextRescan = MonotonicClock.seconds() + (rescanInterval > 0 ? rescanInterval : .infinity)
        while true {
            let now = MonotonicClock.seconds()
            var wait = min(1.0, nextRescan - now)
            if sync.hasPendingChange { wait = min(wait, settle) }
            if let inotify {
                if inotify.wait(seconds: wait) {
                    inotify.read().forEach(handle)
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
            for failure in step.failures { logger.warning("library rescan: \(failure)") }
            for path in step.entered where watchOf[path] == nil { watch(path) }
            if let change = step.change {
                report(change)
            } else if library.generation != before {
                logger.info("library rescanned: \(library.count) images")
            }
        }
    }

    /// One event, as a call on the library's rules.
    private func handle(_ event: Inotify.Event) {
        let (wd, mask, name) = (event.watch, event.events, event.name)
        if mask.contains(.overflowed) { return sync.eventsLost() }
        if mask.contains(.watchRemoved), let gone = pathOf.removeValue(forKey: wd) {
            // The folder was deleted or moved away (or unmounted): list it, and so drop it, next round.
            watchOf[gone] = nil
            return sync.folderChanged(gone)
        }
        guard let folderPath = pathOf[wd], !name.isEmpty, !name.hasPrefix(".") else { return }
        let path = folderPath + "/" + name
        if mask.contains(.isDirectory) {
            if !mask.isDisjoint(with: [.created, .movedTo, .deleted, .movedFrom]) { sync.folderChanged(folderPath) }
            return
        }
        guard ImageNaming.isImage(name) else { return }
        if mask.contains(.created) {
            sync.fileCreated(path)
        } else if mask.contains(.modified) {
            sync.fileWritten(path)
        } else {
            sync.fileFinished(path)
        }
    }

    private func watch(_ path: String) {
        guard let inotify else { return }
        let wd: CInt
        do {
            wd = try inotify.watch(path, for: [.created, .closedAfterWriting, .movedFrom, .movedTo, .deleted, .attributes,
                                               .modified, .onlyDirectory])
        } catch {
            if !warnedLimit {
                warnedLimit = true
                logger.warning("cannot watch \(path) (\(String(cString: strerror(error.errno)))); changes there show at the next rescan")
            }
            return
        }
        if let old = pathOf[wd] { watchOf[old] = nil }   // one folder reached by a new path
        pathOf[wd] = path
        watchOf[path] = wd
    }

    private func unwatch(_ path: String) {
        guard let wd = watchOf.removeValue(forKey: path) else { return }
        inotify?.unwatch(wd)
        pathOf[wd] = nil
    }

    private func report(_ change: ImageLibrary.Change) {
        guard !change.isEmpty else { return }
        logger.info("library: \(change.added.count) added, \(change.removed.count) removed, \(change.replaced.count) replaced; \(library.count) images")
    }
}
