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
    /// A folder the library holds images of: its command-line path index, id prefix and inotify watch (nil when
    /// the kernel dropped it or none could be added).
    private struct Folder {
        let root: Int
        let id: String
        var watch: CInt?
    }

    private let roots: LibraryRoots
    private let library: ImageLibrary
    private let logger: Logger
    private let rescanInterval: Double
    private let writeQuiet = 3.0
    /// Quiet time after an event before the folder is listed again, so a burst is one listing.
    private let settle = 0.05
    private var inotify: CInt = -1
    /// Every folder entered, by path; kept until a listing of its parent (or a rescan) finds it gone, whatever
    /// happened to its watch, so a deleted folder's images always leave with it.
    private var folders: [String: Folder] = [:]
    private var pathOf: [CInt: String] = [:]
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
                markDirty(PathText.parent(of: path))
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
        if mask & UInt32(IN_IGNORED) != 0, let gone = pathOf.removeValue(forKey: wd) {
            // The folder was deleted or moved away (or unmounted): list it, and so drop it, next round.
            folders[gone]?.watch = nil
            markDirty(gone)
            return
        }
        guard let folderPath = pathOf[wd], !name.isEmpty, !name.hasPrefix(".") else { return }
        let path = folderPath + "/" + name
        if mask & UInt32(IN_ISDIR) != 0 {
            if mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0 { markDirty(folderPath) }
            return
        }
        guard ImageNaming.imageFormat(of: name) != nil else { return }
        if mask & UInt32(IN_CREATE) != 0 {
            var sb = stat()
            let complete = lstat(path, &sb) == 0 && ((sb.st_mode & S_IFMT) == S_IFLNK || sb.st_nlink > 1)
            if complete { markDirty(folderPath) } else { writing[path] = MonotonicClock.seconds() }
        } else if mask & UInt32(IN_MODIFY) != 0 {
            if writing[path] != nil { writing[path] = MonotonicClock.seconds() }
        } else {
            writing[path] = nil
            markDirty(folderPath)
        }
    }

    private func markDirty(_ path: String) {
        if dirty.isEmpty { dirtySince = MonotonicClock.seconds() }
        dirty.insert(path)
    }

    /// Lists one watched folder again; walks sub-folders that appeared, drops those that went.
    private func relist(_ path: String) {
        guard let folder = folders[path] else { return }
        guard FolderScanner.identity(of: path) != nil,
              let listing = FolderScanner.list(path, prefix: folder.id, skip: { self.writing[$0] != nil }) else {
            report(library.apply(root: folder.root, scope: .subtree(folder.id), files: [:]))
            forget(below: path)
            return
        }
        var change = library.apply(root: folder.root, scope: .folder(folder.id), files: listing.files)
        let current = Dictionary(listing.folders.map { ($0.path, $0.id) }, uniquingKeysWith: { first, _ in first })
        for (childPath, child) in folders where PathText.parent(of: childPath) == path && current[childPath] != child.id {
            let gone = library.apply(root: folder.root, scope: .subtree(child.id), files: [:])
            change.removed += gone.removed
            forget(below: childPath)
        }
        var visited = Set(folders.keys.compactMap(FolderScanner.identity(of:)))
        for (childPath, childID) in current where folders[childPath] == nil {
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
        for path in Array(folders.keys) where !paths.contains(path) { forget(below: path) }
        for (root, entries) in entered {
            for entry in entries where folders[entry.path]?.watch == nil { watch(root: root, id: entry.id, path: entry.path) }
        }
        if library.generation != before { logger.info("library rescanned: \(library.count) images") }
        System.releaseFreeMemory()
    }

    /// Records the folder and watches it (when inotify is on).
    private func watch(root: Int, id: String, path: String) {
        folders[path] = Folder(root: root, id: id, watch: nil)
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
        if let old = pathOf[wd] { folders[old]?.watch = nil }   // one folder reached by a new path
        pathOf[wd] = path
        folders[path]?.watch = wd
    }

    /// Forgets the folder at `path` and every folder below it, and drops their watches.
    private func forget(below path: String) {
        for (known, folder) in folders where known == path || known.hasPrefix(path + "/") {
            if let wd = folder.watch {
                inotify_rm_watch(inotify, wd)
                pathOf[wd] = nil
            }
            folders[known] = nil
        }
    }

    private func report(_ change: ImageLibrary.Change) {
        guard !change.isEmpty else { return }
        logger.info("library: \(change.added.count) added, \(change.removed.count) removed, \(change.replaced.count) replaced; \(library.count) images")
    }
}
