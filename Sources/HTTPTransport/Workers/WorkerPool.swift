import POSIXSupport

/// A fixed set of threads for slow work (tile renders, view images, listings), so event loops never block on it.
/// Normal jobs run first-in first-out; low-priority jobs (prefetch) run only when no normal job waits, and
/// are refused when their queue is full.
public final class WorkerPool: @unchecked Sendable {
    private let lock = ConditionLock()
    private var normal: [(@Sendable () -> Void)?] = []
    private var normalHead = 0
    private var low: [@Sendable () -> Void] = []
    private let lowPriorityLimit: Int

    public init(threads: Int, lowPriorityLimit: Int) {
        self.lowPriorityLimit = lowPriorityLimit
        for _ in 0 ..< max(1, threads) {
            startDetachedThread { [self] in
                while let job = next() { job() }
            }
        }
    }

    public func submit(_ job: @escaping @Sendable () -> Void) {
        lock.withLock {
            normal.append(job)
            lock.broadcast()
        }
    }

    /// Queues `job` unless the low-priority queue is full or normal work is waiting; returns whether it was queued.
    public func submitLowPriority(_ job: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard low.count < lowPriorityLimit, normal.count - normalHead == 0 else { return false }
            low.append(job)
            lock.broadcast()
            return true
        }
    }

    /// The next job, waiting for one; the threads live as long as the process.
    private func next() -> (@Sendable () -> Void)? {
        lock.withLock {
            while normalHead == normal.count && low.isEmpty { lock.wait() }
            if normalHead < normal.count {
                let job = normal[normalHead]
                normal[normalHead] = nil
                normalHead += 1
                if normalHead > 64 && normalHead * 2 > normal.count {
                    normal.removeFirst(normalHead)
                    normalHead = 0
                }
                return job
            }
            return low.removeFirst()
        }
    }
}
