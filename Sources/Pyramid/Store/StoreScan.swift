import POSIXSupport
import ImageCodecs

#if canImport(Glibc)
import Glibc
#endif

/// A pass whose markers a store holds: one version of one image's tiles made by a decode at `shrink`.
package struct StoredPass: Sendable, Equatable {
    /// The image id.
    package let image: String
    /// The source version the tiles were cut from.
    package let version: String
    /// The tile folder (`TileStore.folder(image:version:options:)`).
    package let folder: String
    package let shrink: Int

    /// The marker written when the pass starts.
    static func startedMarker(folder: String, shrink: Int) -> String { folder + "/pass-\(shrink).started" }
    /// The marker written when every tile of the pass is stored.
    static func doneMarker(folder: String, shrink: Int) -> String { folder + "/pass-\(shrink).done" }
}

/// One walk of a store's directory at start: its tiles with size and age, the passes that started and never
/// finished, and the removal of temporary files that writers no longer running left behind.
struct StoreScan {
    struct Tile {
        let name: String
        let size: Int
        let modified: Int64
    }

    let directory: String

    func run() -> (tiles: [Tile], interrupted: [StoredPass]) {
        var tiles: [Tile] = []
        var started: Set<String> = [], done: Set<String> = []
        walk("") { relative, status in
            let name = PathText.lastComponent(of: relative)
            if name.hasPrefix(".tmp-") {
                if let pid = Self.writerPID(of: name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH {
                    unlink(directory + "/" + relative)
                }
            } else if name.hasPrefix("pass-") {
                if name.hasSuffix(".started") { started.insert(relative) } else if name.hasSuffix(".done") { done.insert(relative) }
            } else {
                tiles.append(Tile(name: relative, size: Int(status.st_size),
                                  modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)))
            }
        }
        let interrupted = started.compactMap { marker -> StoredPass? in
            let folder = PathText.parent(of: marker)
            let name = PathText.lastComponent(of: marker)
            guard let shrink = Int(name.dropFirst("pass-".count).dropLast(".started".count)),
                  !done.contains(StoredPass.doneMarker(folder: folder, shrink: shrink)),
                  let version = PathText.lastComponent(of: folder).split(separator: "-").first else { return nil }
            let image = PathText.parent(of: folder).replacing("%2F", with: "/")
            return StoredPass(image: image, version: String(version), folder: folder, shrink: shrink)
        }
        return (tiles, interrupted.sorted { ($0.folder, $0.shrink) < ($1.folder, $1.shrink) })
    }

    /// The PID in a temporary name `.tmp-PID-N`.
    static func writerPID(of name: String) -> pid_t? {
        let parts = name.split(separator: "-")
        guard parts.count == 3, let pid = pid_t(parts[1]), pid > 0 else { return nil }
        return pid
    }

    /// Every regular file below `directory/relative`, with its `lstat`.
    private func walk(_ relative: String, _ visit: (String, stat) -> Void) {
        for entry in DirectoryEntries.list(relative.isEmpty ? directory : directory + "/" + relative) ?? [] {
            let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
            var status = stat()
            guard lstat(directory + "/" + path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: walk(path, visit)
            case S_IFREG: visit(path, status)
            default: continue
            }
        }
    }
}
