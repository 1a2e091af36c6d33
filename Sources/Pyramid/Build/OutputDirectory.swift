import FoundationEssentials
import POSIXSupport

#if canImport(Glibc)
import Glibc
import TileGeometry
#endif

/// Where a build writes: a hidden directory beside the final place, renamed into place only when complete,
/// so a reader never sees half a pyramid. Replaces an earlier build of the same name.
struct OutputDirectory {
    let layout: BuildOptions.Layout
    let root: String
    let name: String
    /// The directory being written.
    let staging: String

    init(root: String, name: String, layout: BuildOptions.Layout) throws {
        self.root = root
        self.name = name
        self.layout = layout
        let pid = ProcessInfo.processInfo.processIdentifier
        switch layout {
        case .dzi:
            staging = root + "/.\(name).building-\(pid)"
        case .xyz:
            let url = URL(fileURLWithPath: root)
            staging = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).building-\(pid)").path
        }
        do {
            if layout == .dzi { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
            Self.removeStale(in: PathText.parent(of: staging))
            try? FileManager.default.removeItem(atPath: staging)
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw BuildError.output(path: staging, reason: "\(error)")
        }
    }

    /// Directory holding the levels, inside the staging area.
    var tilesDirectory: String { layout == .dzi ? staging + "/\(name)_files" : staging }

    func tilePath(level: Int, x: Int, y: Int, ext: String) -> String {
        switch layout {
        case .dzi: "\(tilesDirectory)/\(level)/\(x)_\(y).\(ext)"
        case .xyz: "\(tilesDirectory)/\(level)/\(x)/\(y).\(ext)"
        }
    }

    func makeDirectories(_ geometry: PyramidGeometry) throws {
        for level in 0 ... geometry.maxLevel {
            let columns = geometry.tileCount(level).columns
            let dirs = layout == .dzi ? ["\(tilesDirectory)/\(level)"] : (0 ..< columns).map { "\(tilesDirectory)/\(level)/\($0)" }
            for dir in dirs {
                do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                    throw BuildError.output(path: dir, reason: "\(error)")
                }
            }
        }
    }

    /// Writes `bytes` to `path` (inside the staging area).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = try syscall("open(\(path))") { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        defer { close(fd) }
        var done = 0
        try bytes.withUnsafeBytes { buf in
            while done < buf.count {
                done += try syscall("write(\(path))") { Glibc.write(fd, buf.baseAddress! + done, buf.count - done) }
            }
        }
    }

    /// Moves the finished pyramid into place: tiles first, then the `.dzi` that announces them.
    func commit(dzi: String?) throws {
        let fm = FileManager.default
        do {
            switch layout {
            case .dzi:
                if let dzi { try Self.write(Array(dzi.utf8), to: staging + "/\(name).dzi") }
                try replace(staging + "/\(name)_files", with: root + "/\(name)_files")
                try replace(staging + "/\(name).dzi", with: root + "/\(name).dzi")
                try fm.removeItem(atPath: staging)
            case .xyz:
                try replace(staging, with: root)
            }
        } catch let error as BuildError {
            throw error
        } catch {
            throw BuildError.output(path: root, reason: "\(error)")
        }
    }

    /// `rename(2)` over `destination`, moving an existing one aside first and deleting it after.
    private func replace(_ source: String, with destination: String) throws {
        let fm = FileManager.default
        let aside = destination + ".old-\(ProcessInfo.processInfo.processIdentifier)"
        let existed = fm.fileExists(atPath: destination)
        if existed { try syscall("rename(\(destination))") { rename(destination, aside) } }
        try syscall("rename(\(source))") { rename(source, destination) }
        if existed { try? fm.removeItem(atPath: aside) }
    }

    /// Removes what builds killed mid-way left in `directory`: staging directories (`.NAME.building-PID`) and
    /// replaced outputs moved aside (`NAME.old-PID`) whose PID no longer runs. A live build's are never
    /// touched, nor anything whose PID cannot be read. Returns the paths removed.
    @discardableResult
    static func removeStale(in directory: String) -> [String] {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for entry in entries {
            guard let pid = Self.builderPID(of: entry), pid != getpid(), !Self.isRunning(pid) else { continue }
            let path = directory + "/" + entry
            if (try? fm.removeItem(atPath: path)) != nil { removed.append(path) }
        }
        return removed
    }

    /// The PID in `.NAME.building-PID` or `NAME.old-PID`, or nil for any other name.
    static func builderPID(of entry: String) -> pid_t? {
        for marker in [".building-", ".old-"] {
            guard let found = entry.utf8.ranges(of: marker.utf8).last, marker == ".old-" || entry.hasPrefix(".") else { continue }
            let digits = entry[found.upperBound...]
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let pid = pid_t(digits), pid > 0 else { continue }
            return pid
        }
        return nil
    }

    /// `kill(pid, 0)`: a process exists unless it answers ESRCH (EPERM means it runs as someone else).
    static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    func discard() {
        try? FileManager.default.removeItem(atPath: staging)
    }
}
