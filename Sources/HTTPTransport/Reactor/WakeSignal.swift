import CEpoll
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// An eventfd that wakes an event loop from other threads.
struct WakeSignal {
    let fd: CInt

    init() throws {
        fd = try syscall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC)) }
    }

    func signal() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    func drain() {
        var value: UInt64 = 0
        _ = read(fd, &value, 8)
    }
}
