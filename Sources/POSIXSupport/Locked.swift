#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`, the stand-in for `Synchronization.Mutex` everywhere in the project:
/// ThreadSanitizer intercepts pthread mutexes, but not the futex lock inside the prebuilt Synchronization
/// library, so with `Mutex` `swift test --sanitize=thread` reports races in correctly locked code.
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Inlinable, so a caller in another module gets `body`
    /// inlined rather than called through a generic closure.
    @inlinable @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
