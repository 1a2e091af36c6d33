/// Runs `count` jobs that mostly wait (requests to a store far away), up to `width` at once: the calling thread
/// takes jobs too, threads of their own take the rest, and the call returns once every job has run. The caller's
/// pool is told it waits meanwhile (`BlockingWait`). For I/O, not CPU: each call starts its threads anew.
package enum ConcurrentWaits {
    package static func run(_ count: Int, width: Int, _ job: @escaping @Sendable (Int) -> Void) {
        guard count > 1, width > 1 else {
            for i in 0 ..< count { job(i) }
            return
        }
        final class State: @unchecked Sendable {
            let lock = ConditionLock()
            var next = 0
            var done = 0
        }
        let state = State()
        @Sendable func work() {
            while true {
                let i = state.lock.withLock { () -> Int in
                    defer { state.next += 1 }
                    return state.next
                }
                guard i < count else { return }
                job(i)
                state.lock.withLock {
                    state.done += 1
                    if state.done == count { state.lock.broadcast() }
                }
            }
        }
        for _ in 1 ..< min(width, count) { startDetachedThread(work) }
        work()
        BlockingWait.during {
            state.lock.withLock {
                while state.done < count { state.lock.wait() }
            }
        }
    }
}
