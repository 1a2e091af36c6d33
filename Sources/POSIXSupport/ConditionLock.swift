#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable (`pthread_mutex_t` + `pthread_cond_t`), for threads that wait until
/// another thread has made progress. Swift's `Mutex` has no way to wait.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits, with the lock held by the caller inside `withLock`, until `broadcast` wakes it.
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes every waiter; call with the lock held.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
