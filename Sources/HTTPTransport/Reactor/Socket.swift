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

    /// `accept4` with SOCK_NONBLOCK | SOCK_CLOEXEC, and the peer's address as text (`127.0.0.1`, `::1`; an IPv4
    /// peer on an IPv6 socket without its `::ffff:` prefix); nil when no connection is waiting.
    static func accept(_ listener: CInt) throws -> (fd: CInt, peer: String)? {
        var storage = sockaddr_storage()
        while true {
            let fd = cepoll_accept4_peer(listener, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), &storage)
            if fd >= 0 {
                var one: CInt = 1
                setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
                return (fd, address(of: &storage))
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN: return nil
            default: throw SyscallError(call: "accept4", errno: errno)
            }
        }
    }

    /// A socket address's host part as text.
    static func address(of storage: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = CInt(storage.ss_family)
        let ok = withUnsafePointer(to: &storage) { pointer -> Bool in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { six in
                    var address = six.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil
                }
            }
            guard family == AF_INET else { return false }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { four in
                var address = four.pointee.sin_addr
                return inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil
            }
        }
        guard ok else { return "" }
        let written = String(cString: text)
        return written.hasPrefix("::ffff:") && written.contains(".") ? String(written.dropFirst(7)) : written
    }
}
