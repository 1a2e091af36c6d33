import POSIXSupport
@testable import ImageCodecs

#if canImport(Glibc)
import Glibc
#endif

/// Objects in memory as a store would serve them, counting the byte ranges asked for and which thread asked; each
/// GET held `delay` seconds, as by a store far away; the GETs of a path `hold` names wait until `release`, as
/// for a store that hangs on them.
final class MemoryObjects: ObjectBytes, @unchecked Sendable {
    let lock = Locked<(files: [String: (bytes: [UInt8], tag: String)], reads: [String], threads: [UInt])>(([:], [], []))
    let delay: Double
    private let gate = ConditionLock()
    nonisolated(unsafe) private var held: Set<String> = []   // guarded by `gate`
    nonisolated(unsafe) private var waiting = 0               // guarded by `gate`

    init(delay: Double = 0) {
        self.delay = delay
    }

    func put(_ path: String, _ bytes: [UInt8], tag: String) { lock.withLock { $0.files[path] = (bytes, tag) } }
    func hold(_ path: String) { gate.withLock { held.insert(path) } }
    func release(_ path: String) { gate.withLock { held.remove(path); gate.broadcast() } }
    /// GETs waiting on a held path.
    var heldGETs: Int { gate.withLock { waiting } }
    var reads: [String] { lock.withLock { $0.reads } }
    /// The thread each read was made on, in the order of `reads`.
    var readThreads: [UInt] { lock.withLock { $0.threads } }

    func version(of path: String) throws(ObjectReadError) -> ObjectVersion {
        guard let file = lock.withLock({ $0.files[path] }) else { throw .failed(reason: "no such object") }
        return ObjectVersion(size: Int64(file.bytes.count), tag: file.tag,
                             stamp: FileStamp(size: Int64(file.bytes.count), modified: 1, tag: FNV1a(Array(file.tag.utf8)).value))
    }

    func bytes(of path: String, offset: Int64, count: Int, version: ObjectVersion) throws(ObjectReadError) -> [UInt8] {
        guard let file = lock.withLock({ $0.files[path] }) else { throw .failed(reason: "no such object") }
        guard file.tag == version.tag else { throw .changed }
        lock.withLock {
            $0.reads.append("\(path)@\(offset)+\(count)")
            $0.threads.append(UInt(pthread_self()))
        }
        gate.withLock {
            guard held.contains(path) else { return }
            waiting += 1
            while held.contains(path) { gate.wait() }
            waiting -= 1
        }
        if delay > 0 { usleep(UInt32(delay * 1_000_000)) }
        let start = Int(min(Int64(file.bytes.count), offset))
        return Array(file.bytes[start ..< min(file.bytes.count, start + count)])
    }

    func refresh(_ path: String) {}
    func stamp(of path: String) -> FileStamp? { try? version(of: path).stamp }
}
