import Logging
import POSIXSupport
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the library in step with its folders while the server runs: inotify reports what changed in which
/// folder, and that folder alone is listed again (a new sub-folder is walked); a full rescan every
/// `--rescan-interval` seconds catches what events miss (network file systems, a full event queue, a file named
/// on the command line). One background thread owns all of this state.
///
/// A file is taken in once it is complete: on `IN_CLOSE_WRITE` or a rename into the folder (what `cp`, `rsync`
/// and editors end with). A file still being created is left out of listings until then, or until it has been
/// quiet for `writeQuiet` seconds (a hard link is complete at once, but never closed).
final class FolderWatcher: @unchecked Sendable {
    private struct Watched {
        let root: Int
        let id: String
        let path: String
    }

    private let roots: LibraryRoots
    private let library: ImageLibrary
    private let logger: Logger
    private let rescanInterval: Double
    private let writeQuiet = 3.0
    /// Quiet time after an event before the folder is listed again, so a burst is one listing.
    private let settle = 0.05
    private var inotify: CInt = -1
    private var watches: [CInt: Watched] = [:]
    private var watchOf: [String: CInt] = [:]
    /// Files created and not yet closed, with when they were last written.
    private var writing: [String: Double] = [:]
    private var dirty: Set<String> = []
    private var dirtySince = 0.0
    private var fullRescan = false
    private var warnedLimit = false

    init(roots: LibraryRoots, library: ImageLibrary, logger: Logger, inotify useInotify: Bool, rescanInterval: Double) {
        self.roots = roots
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

    /// Watches the folders the first scan entered, then runs on its own thread.
    func start(folders: [Int: [FolderScanner.FolderEntry]]) {
        for (root, entries) in folders {
            for entry in entries { watch(root: root, id: entry.id, path: entry.path) }
        }
        guard inotify >= 0 || rescanInterval > 0 else { return }
        startDetachedThread { [self] in run() }
    }

    private func run() {
        var nextRescan = MonotonicClock.seconds() + (rescanInterval > 0 ? rescanInterval : .infinity)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let now = MonotonicClock.seconds()
            var wait = min(1.0, nextRescan - now)
            if !dirty.isEmpty { wait = min(wait, settle) }
            if inotify >= 0 {
                var pfd = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, Int32(max(0, wait) * 1000))
                if ready > 0 {
                    drain(&buffer)
                    // Keep gathering a burst, but never hold a change back longer than a quarter second.
                    if MonotonicClock.seconds() - dirtySince < 0.25 { continue }
                }
            } else {
                usleep(UInt32(max(0, wait) * 1_000_000))
            }
            let later = MonotonicClock.seconds()
            for (path, last) in writing where later - last > writeQuiet {
                writing[path] = nil
                markDirty(parent(of: path))
            }
            if fullRescan || later >= nextRescan {
                rescanEverything()
                nextRescan = later + (rescanInterval > 0 ? rescanInterval : .infinity)
            } else if !dirty.isEmpty {
                let folders = dirty
                dirty = []
                for path in folders.sorted() { relist(path) }
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

    private func handle(wd: CInt, mask: UInt32, name: String) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            fullRescan = true
            return
        }
        if mask & UInt32(IN_IGNORED) != 0, let gone = watches.removeValue(forKey: wd) {
            watchOf[gone.path] = nil
            return
        }
        guard let folder = watches[wd], !name.isEmpty, !name.hasPrefix(".") else { return }
        let path = folder.path + "/" + name
        if mask & UInt32(IN_ISDIR) != 0 {
            if mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0 { markDirty(folder.path) }
            return
        }
        guard ImageNaming.imageFormat(of: name) != nil else { return }
        if mask & UInt32(IN_CREATE) != 0 {
            var sb = stat()
            let complete = lstat(path, &sb) == 0 && ((sb.st_mode & S_IFMT) == S_IFLNK || sb.st_nlink > 1)
            if complete { markDirty(folder.path) } else { writing[path] = MonotonicClock.seconds() }
        } else if mask & UInt32(IN_MODIFY) != 0 {
            if writing[path] != nil { writing[path] = MonotonicClock.seconds() }
        } else {
            writing[path] = nil
            markDirty(folder.path)
        }
    }

    private func markDirty(_ path: String) {
        if dirty.isEmpty { dirtySince = MonotonicClock.seconds() }
        dirty.insert(path)
    }

    /// Lists one watched folder again; walks sub-folders that appeared, drops those that went.
    private func relist(_ path: String) {
        guard let wd = watchOf[path], let folder = watches[wd] else { return }
        guard let listing = FolderScanner.list(path, prefix: folder.id, skip: { self.writing[$0] != nil }) else {
            report(library.apply(root: folder.root, scope: .subtree(folder.id), files: [:]))
            unwatch(below: path, including: true)
            return
        }
        var change = library.apply(root: folder.root, scope: .folder(folder.id), files: listing.files)
        let current = Dictionary(listing.folders.map { ($0.path, $0.id) }, uniquingKeysWith: { first, _ in first })
        for (childPath, wd) in watchOf where parent(of: childPath) == path {
            guard let child = watches[wd], current[childPath] != child.id else { continue }
            let gone = library.apply(root: folder.root, scope: .subtree(child.id), files: [:])
            change.removed += gone.removed
            unwatch(below: childPath, including: true)
        }
        var visited = Set(watchOf.keys.compactMap(FolderScanner.identity(of:)))
        for (childPath, childID) in current where watchOf[childPath] == nil {
            let (files, entered) = FolderScanner.walk(childPath, prefix: childID, visited: &visited, skip: { self.writing[$0] != nil })
            let added = library.apply(root: folder.root, scope: .subtree(childID), files: files)
            change.added += added.added
            for entry in entered { watch(root: folder.root, id: entry.id, path: entry.path) }
        }
        report(change)
    }

    private func rescanEverything() {
        fullRescan = false
        dirty = []
        let before = library.generation
        let entered = roots.scanAll(into: library, skip: { self.writing[$0] != nil })
        let paths = Set(entered.values.flatMap { $0.map(\.path) })
        for path in Array(watchOf.keys) where !paths.contains(path) { unwatch(below: path, including: true) }
        for (root, entries) in entered {
            for entry in entries where watchOf[entry.path] == nil { watch(root: root, id: entry.id, path: entry.path) }
        }
        if library.generation != before { logger.info("library rescanned: \(library.count) images") }
        System.releaseFreeMemory()
    }

    private func watch(root: Int, id: String, path: String) {
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
        if let old = watches[wd] { watchOf[old.path] = nil }   // one folder reached by a new path
        watches[wd] = Watched(root: root, id: id, path: path)
        watchOf[path] = wd
    }

    private func unwatch(below path: String, including: Bool) {
        for (watched, wd) in watchOf where (including && watched == path) || watched.hasPrefix(path + "/") {
            inotify_rm_watch(inotify, wd)
            watches[wd] = nil
            watchOf[watched] = nil
        }
    }

    private func parent(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    }

    private func report(_ change: ImageLibrary.Change) {
        guard !change.isEmpty else { return }
        logger.info("library: \(change.added.count) added, \(change.removed.count) removed, \(change.replaced.count) replaced; \(library.count) images")
    }
}
