import POSIXSupport

/// The shared store's writes, off the threads that cut tiles: a pass hands each tile over and goes on while
/// `threads` writers PUT them (with a store 20–50 ms away, one PUT after another would hold a pass for tens of
/// seconds). At most `byteLimit` bytes wait; past that a tile is not kept (the store is a cache: it is cut again
/// if asked for). A tile waiting is read back from here, and `drain` waits until every write handed over so far is
/// done: a pass's end marker is written only after its tiles.
final class ObjectStoreWriter: @unchecked Sendable {
    /// PUTs in flight: enough that a store 20 ms away takes 800 tiles a second (a pass cuts hundreds a second).
    static let threads = 16
    static let byteLimit = 64 << 20

    private let lock = ConditionLock()
    private var queue: [(name: String, bytes: [UInt8])] = []
    private var waiting: [String: [UInt8]] = [:]
    private var bytes = 0
    private var busy = 0
    private var started = false
    private var droppedCount = 0
    /// Tiles not kept because the queue was full.
    var dropped: Int { lock.withLock { droppedCount } }
    private let put: @Sendable (String, [UInt8]) -> Void

    /// `put` writes one object (and swallows its failure).
    init(put: @escaping @Sendable (String, [UInt8]) -> Void) {
        self.put = put
    }

    /// Queues `bytes` under `name`; false when the queue is full and the write is dropped.
    @discardableResult
    func enqueue(_ name: String, _ bytes: [UInt8]) -> Bool {
        lock.withLock {
            if !started {
                started = true
                for _ in 0 ..< Self.threads { startDetachedThread { [self] in run() } }
            }
            guard self.bytes + bytes.count <= Self.byteLimit else {
                droppedCount += 1
                return false
            }
            queue.append((name, bytes))
            waiting[name] = bytes
            self.bytes += bytes.count
            lock.broadcast()
            return true
        }
    }

    /// The bytes of a write still waiting, if `name` is one.
    func pending(_ name: String) -> [UInt8]? {
        lock.withLock { waiting[name] }
    }

    /// Blocks until every write queued so far is done (or `timeout` seconds have passed).
    func drain(timeout: Double = 60) {
        let deadline = MonotonicClock.seconds() + timeout
        lock.withLock {
            while !queue.isEmpty || busy > 0 {
                if !lock.wait(until: deadline) { return }
            }
        }
    }

    private func run() {
        while true {
            let job = lock.withLock { () -> (name: String, bytes: [UInt8]) in
                while queue.isEmpty { lock.wait() }
                busy += 1
                return queue.removeLast()   // any order: a marker waits for all of them (`drain`)
            }
            put(job.name, job.bytes)
            lock.withLock {
                busy -= 1
                bytes -= job.bytes.count
                if waiting[job.name] == job.bytes { waiting[job.name] = nil }
                lock.broadcast()
            }
        }
    }
}
