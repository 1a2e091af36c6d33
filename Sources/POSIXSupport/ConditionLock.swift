#if canImport(Glibc)
import Glibc
#endif

/// A mutex with condition variables (`pthread_mutex_t` + `pthread_cond_t`), for threads that wait until
/// another thread has made progress. Swift's `Mutex` has no way to wait. Most users need one condition; threads
/// that wait for different things under one lock (the workers of two queues) each wait on a condition of their
/// own, so that work for one kind wakes one thread of that kind, not every thread of both.
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let count: Int

    /// A lock with `conditions` condition variables (at least one), numbered from 0.
    package init(conditions: Int = 1) {
        count = max(1, conditions)
        self.conditions = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: count)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) // timed waits immune to clock changes
        for i in 0 ..< count { pthread_cond_init(self.conditions + i, &attributes) }
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        for i in 0 ..< count { pthread_cond_destroy(conditions + i) }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        conditions.deallocate()
    }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits on condition `which`, with the lock held by the caller inside `withLock`, until `broadcast` or
    /// `signal(which)` wakes it (or spuriously: callers wait in a loop on what they wait for).
    package func wait(on which: Int = 0) {
        precondition(which >= 0 && which < count, "no such condition")
        pthread_cond_wait(conditions + which, mutex)
    }

    /// `wait()` on condition 0 that gives up at `deadline` (`MonotonicClock.seconds()`); returns false when it
    /// timed out.
    @discardableResult
    package func wait(until deadline: Double) -> Bool {
        let whole = deadline.rounded(.down)
        var ts = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        return pthread_cond_timedwait(conditions, mutex, &ts) != ETIMEDOUT
    }

    /// Wakes one thread waiting on condition `which`; call with the lock held.
    package func signal(_ which: Int = 0) {
        precondition(which >= 0 && which < count, "no such condition")
        pthread_cond_signal(conditions + which)
    }

    /// Wakes every waiter on every condition; call with the lock held.
    package func broadcast() {
        for i in 0 ..< count { pthread_cond_broadcast(conditions + i) }
    }
}
