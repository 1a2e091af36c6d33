import POSIXSupport

/// The shared store's writes, off the threads that cut tiles: a pass hands each tile over and goes on while
/// `threads` writers PUT them in the order given (with a store 20–50 ms away, one PUT after another would hold a
/// pass for tens of seconds). At most `byteLimit` bytes wait; past that a tile is not kept (the store is a cache: it
/// is cut again if asked for). A tile waiting is read back from here. A pass's end marker is handed over with
/// `enqueueAfterQueued`: it is written once every write handed over before it is done, and never earlier, however
/// long the queue stays busy with later passes' tiles.
final class ObjectStoreWriter: @unchecked Sendable {
    /// PUTs in flight: enough that a store 20 ms away takes 800 tiles a second (a pass cuts hundreds a second).
    static let threads = 16
    static let byteLimit = 64 << 20

    private struct Job {
        let order: Int
        let name: String
        let bytes: [UInt8]
    }

    private let lock = ConditionLock()
    /// Jobs in the order handed over, from `head` on.
    private var queue: [Job] = []
    private var head = 0
    private var nextOrder = 0
    /// The orders of the jobs being written now.
    private var busy: Set<Int> = []
    /// Writes that wait for every job before `order` to be done.
    private var held: [Job] = []
    private var waiting: [String: [UInt8]] = [:]
    private var bytes = 0
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
            guard self.bytes + bytes.count <= Self.byteLimit else {
                droppedCount += 1
                return false
            }
            append(Job(order: take(), name: name, bytes: bytes))
            return true
        }
    }

    /// Writes `bytes` under `name` once every write queued so far is done (a pass's end marker after its tiles).
    func enqueueAfterQueued(_ name: String, _ bytes: [UInt8]) {
        lock.withLock {
            held.append(Job(order: take(), name: name, bytes: bytes))
            release()
        }
    }

    /// The bytes of a write still waiting, if `name` is one.
    func pending(_ name: String) -> [UInt8]? {
        lock.withLock { waiting[name] }
    }

    /// Blocks until every write handed over so far, held ones included, is done (or `timeout` seconds have passed).
    func drain(timeout: Double) {
        let deadline = MonotonicClock.seconds() + timeout
        lock.withLock {
            while head < queue.count || !busy.isEmpty || !held.isEmpty {
                if !lock.wait(until: deadline) { return }
            }
        }
    }

    /// The next order; the lock is held.
    private func take() -> Int {
        defer { nextOrder += 1 }
        return nextOrder
    }

    /// Queues `job` for the writers, starting them the first time; the lock is held.
    private func append(_ job: Job) {
        if !started {
            started = true
            for _ in 0 ..< Self.threads { startDetachedThread { [self] in run() } }
        }
        queue.append(job)
        waiting[job.name] = job.bytes
        bytes += job.bytes.count
        lock.broadcast()
    }

    /// Queues the held writes whose predecessors are all done; the lock is held.
    private func release() {
        let oldest = min(busy.min() ?? .max, head < queue.count ? queue[head].order : .max)
        let ready = held.filter { $0.order < oldest }
        guard !ready.isEmpty else { return }
        held.removeAll { $0.order < oldest }
        // A new order each, so the queue's orders keep rising from its head.
        for job in ready { append(Job(order: take(), name: job.name, bytes: job.bytes)) }
    }

    private func run() {
        while true {
            let job = lock.withLock { () -> Job in
                while head == queue.count { lock.wait() }
                let job = queue[head]
                head += 1
                if head > 1024 && head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                busy.insert(job.order)
                return job
            }
            put(job.name, job.bytes)
            lock.withLock {
                busy.remove(job.order)
                bytes -= job.bytes.count
                if waiting[job.name] == job.bytes { waiting[job.name] = nil }
                release()
                lock.broadcast()
            }
        }
    }
}
