#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable (`pthread_mutex_t` + `pthread_cond_t`), for threads that wait until
/// another thread has made progress. Swift's `Mutex` has no way to wait.
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) // timed waits immune to clock changes
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits, with the lock held by the caller inside `withLock`, until `broadcast` wakes it.
    package func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// `wait()` that gives up at `deadline` (`MonotonicClock.seconds()`); returns false when it timed out.
    @discardableResult
    package func wait(until deadline: Double) -> Bool {
        let whole = deadline.rounded(.down)
        var ts = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        return pthread_cond_timedwait(condition, mutex, &ts) != ETIMEDOUT
    }

    /// Wakes every waiter; call with the lock held.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
