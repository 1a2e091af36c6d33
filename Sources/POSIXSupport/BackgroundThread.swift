#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached POSIX thread (`pthread_create`) running `body`. Used for long sequential decode passes,
/// which must not occupy a worker that serves cached tiles.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    if rc != 0 {
        Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
    } else {
        pthread_detach(thread)
    }
}

/// Lowers the calling thread's CPU priority by `nice` steps (Linux applies `setpriority` to one thread). Under an
/// I/O scheduler that honours priorities (BFQ) its disk priority follows too: the kernel derives a thread's
/// best-effort I/O priority from its nice value. Work that only finishes something in the background runs this,
/// so requests a viewer is waiting for go first.
package func lowerCurrentThreadPriority(by nice: Int32 = 19) {
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) // who 0: on Linux, the calling thread only
}
