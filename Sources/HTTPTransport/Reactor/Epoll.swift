import CEpoll
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// An epoll instance (`epoll_create1`, `epoll_ctl`, `epoll_wait`) whose events carry a file descriptor.
struct Epoll {
    let fd: CInt

    init() throws {
        fd = try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    func add(_ target: CInt, events: UInt32) throws {
        var event = epoll_event(events: events, data: epoll_data_t(fd: target))
        try syscall("epoll_ctl(ADD)") { epoll_ctl(fd, EPOLL_CTL_ADD, target, &event) }
    }

    func modify(_ target: CInt, events: UInt32) throws {
        var event = epoll_event(events: events, data: epoll_data_t(fd: target))
        try syscall("epoll_ctl(MOD)") { epoll_ctl(fd, EPOLL_CTL_MOD, target, &event) }
    }

    func remove(_ target: CInt) {
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, nil)
    }

    /// Waits up to `timeout` milliseconds; returns how many events were written to `events`.
    func wait(_ events: inout [epoll_event], timeout: Int32) -> Int {
        let n = events.withUnsafeMutableBufferPointer { epoll_wait(fd, $0.baseAddress, Int32($0.count), timeout) }
        return n < 0 ? 0 : Int(n)
    }
}
