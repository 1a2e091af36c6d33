#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: the call's name and the errno text, e.g. "open(photo.jpg): No such file or directory".
package struct SyscallError: Swift.Error, CustomStringConvertible, Sendable {
    package let call: String
    package let errno: CInt

    package init(call: String, errno: CInt) {
        self.call = call
        self.errno = errno
    }

    package var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}

/// Runs a system call, retrying on EINTR (not for `close`, whose descriptor is gone even then), and throws
/// `SyscallError` with the errno text when it returns -1 (the swift-nio pattern). Calls that can fail in a way
/// the caller acts on go through here or through `Posix`, which wraps the event loop's; calls whose failure
/// changes nothing (`close`, `unlink` of a temporary, `epoll_ctl(DEL)`, `stat` answered by its result) are
/// made directly.
@inline(__always)
@discardableResult
package func syscall<T: FixedWidthInteger>(_ name: @autoclosure () -> String, retryingEINTR: Bool = true,
                                          _ body: () -> T) throws(SyscallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR && retryingEINTR { continue }
        throw SyscallError(call: name(), errno: code)
    }
}
