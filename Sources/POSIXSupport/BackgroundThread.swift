#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached POSIX thread (`pthread_create`) running `body`. Used for long sequential decode passes,
/// which must not occupy a worker that serves cached tiles.
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
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
