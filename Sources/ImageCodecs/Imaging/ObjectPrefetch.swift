import POSIXSupport

/// Blocks of objects fetched before anyone asks for them (`RemoteFile.prefetch`): a master's directories beside
/// its first block, and the tiles a viewer will ask for next. On threads and connections of their own, so a
/// request a client waits for never queues behind them; a read that needs a block on its way waits for that GET
/// instead of sending another. At most a quarter of the block cache's budget is on its way at once, and at most
/// `queueLimit` GETs wait: what does not fit is left for the reads that need it.
final class ObjectPrefetch: @unchecked Sendable {
    static let shared = ObjectPrefetch(threads: 16)

    /// Prefetch GETs that may wait for a thread.
    static let queueLimit = 64

    /// Whether reads ahead of the viewer are made (`--object-prefetch`); a master's directories always are.
    package static func configure(enabled: Bool) {
        shared.lock.withLock { shared.enabled = enabled }
    }

    /// Prefetch GETs made, and bytes they brought.
    package static var statistics: (fetches: Int, bytes: Int) { shared.lock.withLock { (shared.fetches, shared.fetched) } }

    private let lock = ConditionLock()
    private let threads: Int
    private var queue: [(bytes: Int, job: @Sendable () -> Void)] = []
    private var reserved = 0
    private var started = 0
    private var enabled = true
    private var fetches = 0
    private var fetched = 0

    private init(threads: Int) {
        self.threads = threads
    }

    /// The runs of blocks (first, count) that may be fetched now, their bytes reserved; `ahead` for reads ahead
    /// of the viewer, which `--object-prefetch off` refuses.
    func admit(_ runs: [(Int64, Int64)], blockBytes: Int, budget: Int, ahead: Bool) -> [(Int64, Int64)] {
        lock.withLock {
            guard enabled || !ahead else { return [] }
            var taken: [(Int64, Int64)] = []
            for run in runs {
                let bytes = Int(run.1) * blockBytes
                guard queue.count + taken.count < Self.queueLimit, reserved + bytes <= max(budget / 4, blockBytes) else { break }
                reserved += bytes
                taken.append(run)
            }
            return taken
        }
    }

    /// Runs `job` (a GET of `bytes` admitted before) on a prefetch thread.
    func submit(bytes: Int, _ job: @escaping @Sendable () -> Void) {
        lock.withLock {
            queue.append((bytes, job))
            if started < threads {
                started += 1
                startDetachedThread { [self] in run() }
            }
            lock.broadcast()
        }
    }

    private func run() {
        lowerCurrentThreadPriority()
        while true {
            let next = lock.withLock { () -> (bytes: Int, job: @Sendable () -> Void) in
                while queue.isEmpty { lock.wait() }
                return queue.removeFirst()
            }
            next.job()
            lock.withLock {
                reserved -= next.bytes
                fetches += 1
                fetched += next.bytes
            }
        }
    }
}
