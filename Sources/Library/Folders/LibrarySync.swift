import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// The library's rules for keeping step with its folders, in one place: which folders it holds, when a file is
/// complete enough to take in, which folder to list again after a change, what a listing adds and drops
/// (sub-folders walked, gone ones forgotten with their images), and when to rescan everything. Whoever watches
/// the file system (`FolderWatcher`, with inotify) only reports what happened; `step` then applies it and says
/// which folders to start and stop watching. Not thread-safe: one thread owns it.
package final class LibrarySync {
    /// What a step asks of the watcher.
    package struct Step {
        /// Folders entered: watch them.
        package var entered: [String] = []
        /// Folders forgotten (gone, or below a gone one): stop watching them.
        package var forgotten: [String] = []
        /// What changed in the library, for the log; nil after a full rescan.
        package var change: ImageLibrary.Change?
        /// Roots in object storage whose listing failed (their images are kept as they were), for the log.
        package var failures: [String] = []
    }

    private let roots: LibraryRoots
    private let library: ImageLibrary
    /// Seconds a file being written may stay quiet before it is taken in anyway (a hard link is never closed).
    package let writeQuiet: Double
    /// Every folder entered, by path, with its command-line root and id prefix; kept until a listing of its parent
    /// (or a rescan) finds it gone, so a deleted folder's images always leave with it.
    private var folders: [String: (root: Int, id: String)] = [:]
    /// Files created and not yet closed, with when they were last written.
    private var writing: [String: Double] = [:]
    private var dirty: Set<String> = []
    private var dirtySince = 0.0
    private var fullRescan = false

    /// The library after its first scan, which entered `folders` (per root index).
    package init(roots: LibraryRoots, library: ImageLibrary, entered: [Int: [FolderScanner.FolderEntry]], writeQuiet: Double = 3) {
        self.roots = roots
        self.library = library
        self.writeQuiet = writeQuiet
        for (root, entries) in entered {
            for entry in entries { folders[entry.path] = (root, entry.id) }
        }
    }

    /// Every folder held now: what to watch at start.
    package var folderPaths: [String] { Array(folders.keys) }

    // MARK: What the watcher reports

    /// Something in folder `path` changed (an entry added, removed or renamed, or the folder itself went).
    package func folderChanged(_ path: String) {
        if dirty.isEmpty { dirtySince = MonotonicClock.seconds() }
        dirty.insert(path)
    }

    /// An image file appeared at `path`. A symbolic link or a hard link is complete at once; anything else is
    /// being written, and waits for `fileFinished` or `writeQuiet` seconds of silence.
    package func fileCreated(_ path: String) {
        var sb = stat()
        if lstat(path, &sb) == 0 && ((sb.st_mode & S_IFMT) == S_IFLNK || sb.st_nlink > 1) {
            folderChanged(PathText.parent(of: path))
        } else {
            writing[path] = MonotonicClock.seconds()
        }
    }

    /// An image file being written was written again.
    package func fileWritten(_ path: String) {
        if writing[path] != nil { writing[path] = MonotonicClock.seconds() }
    }

    /// An image file was closed after writing, renamed into place, removed or had its attributes changed.
    package func fileFinished(_ path: String) {
        writing[path] = nil
        folderChanged(PathText.parent(of: path))
    }

    /// Events were lost: everything is read again at the next step.
    package func eventsLost() { fullRescan = true }

    /// Whether a folder change waits for the next `step` (the watcher then wakes sooner, gathering a burst).
    package var hasPendingChange: Bool { !dirty.isEmpty }
    /// Seconds the oldest waiting folder change has waited (0 when none).
    package var pendingFor: Double { dirty.isEmpty ? 0 : MonotonicClock.seconds() - dirtySince }

    // MARK: Applying

    /// Applies what was reported: a full rescan when events were lost or `rescanDue`, else a listing of each
    /// changed folder; files quiet for `writeQuiet` are taken in.
    package func step(rescanDue: Bool) -> Step {
        let now = MonotonicClock.seconds()
        for (path, last) in writing where now - last > writeQuiet {
            writing[path] = nil
            folderChanged(PathText.parent(of: path))
        }
        var step = Step()
        if fullRescan || rescanDue {
            rescanEverything(&step)
        } else if !dirty.isEmpty {
            let changed = dirty
            dirty = []
            var change = ImageLibrary.Change()
            for path in changed.sorted() { relist(path, &change, &step) }
            step.change = change
        }
        return step
    }

    /// Lists one folder again; walks sub-folders that appeared, drops those that went.
    private func relist(_ path: String, _ change: inout ImageLibrary.Change, _ step: inout Step) {
        guard let folder = folders[path] else { return }
        let skip = { (file: String) in self.writing[file] != nil }
        guard FolderScanner.identity(of: path) != nil, let listing = FolderScanner.list(path, prefix: folder.id, skip: skip) else {
            change.removed += library.apply(root: folder.root, scope: .subtree(folder.id), files: [:]).removed
            forget(below: path, &step)
            return
        }
        library.record(companions: listing.companions)
        let listed = library.apply(root: folder.root, scope: .folder(folder.id), files: listing.files)
        change.added += listed.added
        change.removed += listed.removed
        change.replaced += listed.replaced
        let current = Dictionary(listing.folders.map { ($0.path, $0.id) }, uniquingKeysWith: { first, _ in first })
        for (childPath, child) in folders where PathText.parent(of: childPath) == path && current[childPath] != child.id {
            change.removed += library.apply(root: folder.root, scope: .subtree(child.id), files: [:]).removed
            forget(below: childPath, &step)
        }
        var visited = Set(folders.keys.compactMap(FolderScanner.identity(of:)))
        for (childPath, childID) in current where folders[childPath] == nil {
            let (files, entered, companions) = FolderScanner.walk(childPath, prefix: childID, visited: &visited, skip: skip)
            library.record(companions: companions)
            change.added += library.apply(root: folder.root, scope: .subtree(childID), files: files).added
            for entry in entered {
                folders[entry.path] = (folder.root, entry.id)
                step.entered.append(entry.path)
            }
        }
    }

    private func rescanEverything(_ step: inout Step) {
        fullRescan = false
        dirty = []
        let entered = roots.scanAll(into: library, skip: { self.writing[$0] != nil }, failed: { root, error in
            step.failures.append("\(root.path): \(error)")
        })
        let paths = Set(entered.values.flatMap { $0.map(\.path) })
        for path in Array(folders.keys) where !paths.contains(path) { forget(below: path, &step) }
        for (root, entries) in entered {
            for entry in entries {
                folders[entry.path] = (root, entry.id)
                step.entered.append(entry.path) // a folder whose watch was lost is watched again
            }
        }
        System.releaseFreeMemory()
    }

    /// Forgets the folder at `path` and every folder below it.
    private func forget(below path: String, _ step: inout Step) {
        for known in Array(folders.keys) where known == path || known.hasPrefix(path + "/") {
            folders[known] = nil
            step.forgotten.append(known)
        }
    }
}
