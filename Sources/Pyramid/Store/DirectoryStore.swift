import FoundationEssentials
import POSIXSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A tile store's files in one directory: each written under a temporary name and renamed into place.
final class DirectoryStore: StoreBackend {
    let location: String
    private let temporaryNames = Atomic<Int>(0)

    init(directory: String) throws {
        location = directory
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw TileStoreError.cannotCreate(directory: directory, reason: "\(error)")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw TileStoreError.cannotCreate(directory: directory, reason: String(cString: strerror(errno)))
        }
    }

    func exists(_ name: String) -> Bool { access(location + "/" + name, F_OK) == 0 }

    func remove(_ name: String) { unlink(location + "/" + name) }

    func removeAll(under prefix: String) {
        try? FileManager.default.removeItem(atPath: location + "/" + prefix)
    }

    func scan() -> (tiles: [StoreScan.Tile], interrupted: [StoredPass]) {
        StoreScan(directory: location).run()
    }

    func write(_ bytes: [UInt8], as name: String) throws {
        let final = location + "/" + name
        let folder = PathText.parent(of: final)
        let temporary = folder + "/.tmp-\(getpid())-\(temporaryNames.add(1, ordering: .relaxed).newValue)"
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw SyscallError(call: "open(\(temporary))", errno: errno) }
        do {
            defer { close(fd) }
            var done = 0
            try bytes.withUnsafeBytes { buf in
                while done < buf.count {
                    done += try syscall("write(\(temporary))") { Glibc.write(fd, buf.baseAddress! + done, buf.count - done) }
                }
            }
        }
        do { try syscall("rename(\(temporary))") { rename(temporary, final) } } catch {
            unlink(temporary)
            throw error
        }
    }

    /// The whole file, or nil when it cannot be read.
    func contents(_ name: String) -> [UInt8]? {
        let fd = open(location + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size > 0, status.st_size < 64 << 20 else { return nil }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }
}
