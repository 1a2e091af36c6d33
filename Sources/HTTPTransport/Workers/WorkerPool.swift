import POSIXSupport

/// A set of threads for slow work (tile renders, view images, listings), so event loops never block on it.
/// Normal jobs run first-in first-out; low-priority jobs (prefetch) run only when no normal job waits, and
/// are refused when their queue is full.
///
/// `threads` of them run jobs at once. A thread that waits on another thread's work (a render waiting for the
/// decode pass that cuts its tile, `BlockingWait`) does not count meanwhile: a spare thread takes the next job,
/// and the first thread over the count once the wait ends leaves. So six thumbnails asked at once all reach the
/// pass scheduler at once, instead of two of them while four wait behind the two blocked threads.
package final class WorkerPool: @unchecked Sendable, BlockingObserver {
    private let lock = ConditionLock()
    private var normal: [(@Sendable () -> Void)?] = []
    private var normalHead = 0
    private var low: [@Sendable () -> Void] = []
    private let lowPriorityLimit: Int
    /// Threads that run jobs at once, those alive, and those of them waiting on other work.
    private let threads: Int
    private var live = 0
    private var blocked = 0
    /// Spare threads at most beyond `threads` (each waiting thread keeps its stack).
    static let spares = 64

    package init(threads: Int, lowPriorityLimit: Int) {
        self.lowPriorityLimit = lowPriorityLimit
        self.threads = max(1, threads)
        lock.withLock {
            for _ in 0 ..< self.threads { startThread() }
        }
    }

    /// Starts one more thread; the lock is held.
    private func startThread() {
        live += 1
        startDetachedThread { [self] in
            BlockingWait.install(self)
            while let job = next() { job() }
        }
    }

    package func willBlock() {
        lock.withLock {
            blocked += 1
            if live - blocked < threads && live < threads + Self.spares { startThread() }
        }
    }

    package func didUnblock() {
        lock.withLock {
            blocked -= 1
            lock.broadcast()
        }
    }

    package func submit(_ job: @escaping @Sendable () -> Void) {
        lock.withLock {
            normal.append(job)
            lock.broadcast()
        }
    }

    /// Queues `job` unless the low-priority queue is full or normal work is waiting; returns whether it was queued.
    package func submitLowPriority(_ job: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard low.count < lowPriorityLimit, normal.count - normalHead == 0 else { return false }
            low.append(job)
            lock.broadcast()
            return true
        }
    }

    /// The next job, waiting for one; nil when the thread is one too many (a spare whose blocked thread is back)
    /// and leaves. `threads` of them live as long as the process.
    private func next() -> (@Sendable () -> Void)? {
        lock.withLock {
            while normalHead == normal.count && low.isEmpty {
                if live - blocked > threads { break }
                lock.wait()
            }
            if live - blocked > threads {
                live -= 1
                return nil
            }
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
