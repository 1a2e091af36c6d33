#if canImport(Glibc)
import Glibc
#endif

/// What a pool of threads for CPU work is told when one of its threads is about to wait for something that is
/// not the CPU (another thread's work), so it can start another thread meanwhile and keep as many running as it
/// is sized for; the idea of Java's `ForkJoinPool.managedBlock`.
package protocol BlockingObserver: AnyObject, Sendable {
    func willBlock()
    func didUnblock()
}

/// The calling thread's pool, if it has one that wants to know when the thread waits (`BlockingObserver`).
package enum BlockingWait {
    /// The calling thread's observer, retained; released when the thread ends (a pool's spare threads come and go).
    nonisolated(unsafe) private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { box in
            if let box { Unmanaged<ObserverBox>.fromOpaque(box).release() }
        }
        return key
    }()

    /// Makes `observer` the calling thread's for the rest of its life (a pool's thread, set once at its start).
    package static func install(_ observer: any BlockingObserver) {
        let box = Unmanaged.passRetained(ObserverBox(observer)).toOpaque()
        pthread_setspecific(key, box)
    }

    /// Runs `wait` (a wait on another thread's work), telling the calling thread's pool before and after.
    package static func during<T, Failure: Error>(_ wait: () throws(Failure) -> T) throws(Failure) -> T {
        guard let raw = pthread_getspecific(key) else { return try wait() }
        let observer = Unmanaged<ObserverBox>.fromOpaque(raw).takeUnretainedValue().observer
        observer.willBlock()
        defer { observer.didUnblock() }
        return try wait()
    }

    private final class ObserverBox {
        let observer: any BlockingObserver
        init(_ observer: any BlockingObserver) { self.observer = observer }
    }
}
