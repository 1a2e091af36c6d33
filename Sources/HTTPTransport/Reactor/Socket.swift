import CEpoll
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Listening and accepted TCP sockets, every call through `syscall` (EINTR retried, errno in the error).
enum Socket {
    /// A non-blocking listening socket on `host:port` (`getaddrinfo`, `socket`, `bind`, `listen`), with
    /// SO_REUSEADDR so a restart does not wait for TIME_WAIT.
    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws -> CInt {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw TransportError.address("\(host):\(port): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError: (any Swift.Error)?
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let ai = candidate {
            candidate = ai.pointee.ai_next
            do {
                let fd = try syscall("socket") { socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
                var one: CInt = 1
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
                do {
                    try syscall("bind(\(host):\(port))") { bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) }
                    try syscall("listen") { Glibc.listen(fd, backlog) }
                } catch {
                    close(fd)
                    throw error
                }
                return fd
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TransportError.address("\(host):\(port): no usable address")
    }

    /// The port a socket is bound to (`getsockname`), for `--port 0`.
    static func localPort(_ fd: CInt) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return 0 }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer -> Int in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// `accept4` with SOCK_NONBLOCK | SOCK_CLOEXEC; nil when no connection is waiting.
    static func accept(_ listener: CInt) throws -> CInt? {
        while true {
            let fd = cepoll_accept4(listener, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if fd >= 0 {
                var one: CInt = 1
                setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
                return fd
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN: return nil
            default: throw SyscallError(call: "accept4", errno: errno)
            }
        }
    }
}
