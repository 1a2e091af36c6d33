import POSIXSupport
import Synchronization

/// A bounded queue of tiles to encode and write, drained by a few threads, so the decoding thread never holds
/// more than `capacity` cut tiles in memory.
final class EncodeQueue<Job: Sendable>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var jobs: [Job?] = []
    private var head = 0
    private var closed = false
    private var running = 0
    private var failure: (any Swift.Error)?
    private let capacity: Int
    let written = Atomic<Int>(0)

    /// Starts `threads` workers, each running `work` on jobs until the queue is closed and empty; `background`
    /// workers run at a lower priority than request threads.
    init(threads: Int, capacity: Int, background: Bool = false, work: @escaping @Sendable (Job) throws -> Void) {
        self.capacity = max(1, capacity)
        running = threads
        for _ in 0 ..< threads {
            startDetachedThread { [self] in
                if background { lowerCurrentThreadPriority() }
                while let job = pop() {
                    do {
                        try work(job)
                        written.add(1, ordering: .relaxed)
                    } catch {
                        lock.withLock {
                            if failure == nil { failure = error }
                            lock.broadcast()
                        }
                    }
                }
                lock.withLock {
                    running -= 1
                    lock.broadcast()
                }
            }
        }
    }

    /// Adds a job, waiting while the queue is full; throws the first worker error.
    func push(_ job: Job) throws {
        try lock.withLock {
            while jobs.count - head >= capacity && failure == nil { lock.wait() }
            if let failure { throw failure }
            jobs.append(job)
            lock.broadcast()
        }
    }

    private func pop() -> Job? {
        lock.withLock {
            while head == jobs.count && !closed && failure == nil { lock.wait() }
            guard head < jobs.count, failure == nil else { return nil }
            let job = jobs[head]
            jobs[head] = nil // release the pixels now, not at the next compaction
            head += 1
            if head > 256 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            lock.broadcast()
            return job
        }
    }

    /// Closes the queue, waits for the workers to finish and throws the first error any of them hit.
    func finish() throws {
        try lock.withLock {
            closed = true
            lock.broadcast()
            while running > 0 { lock.wait() }
            if let failure { throw failure }
        }
    }

    /// Stops the workers after a failure elsewhere; pending jobs are dropped.
    func abandon() {
        lock.withLock {
            closed = true
            jobs.removeAll()
            head = 0
            lock.broadcast()
            while running > 0 { lock.wait() }
        }
    }
}
