import ArgumentParser
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// `tileserver healthcheck [URL]`: exits 0 when `URL` (default: this machine's server, `/healthz` on the port of
/// `TILESERVER_PORT` or 8080) answers 200, else 1. A container `HEALTHCHECK` with no curl in the image.
struct HealthCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the server's /healthz answers 200 (for container health checks)."
    )

    @Argument(help: "http://HOST:PORT/PATH to ask (default: http://127.0.0.1:PORT/healthz, PORT from TILESERVER_PORT or 8080).")
    var url: String?

    @Option(help: "Seconds to wait for the connection and the answer.")
    var timeout: Double = 5

    func run() throws {
        try reportingFailure("tileserver healthcheck") {
            let target: HealthProbe.Target
            if let url {
                target = try HealthProbe.Target(url: url)
            } else {
                let config = try ServerConfiguration.resolve(environment: Environment.variables, flags: [:])
                target = HealthProbe.Target(host: "127.0.0.1", port: config.transport.port, path: "/healthz")
            }
            let status = try HealthProbe.status(of: target, timeout: timeout)
            guard status == 200 else {
                printError("tileserver healthcheck: \(target.description) answered \(status)")
                throw ExitCode(1)
            }
        }
    }
}

/// One blocking HTTP/1.1 GET whose status code is all that matters.
enum HealthProbe {
    struct Target: CustomStringConvertible {
        var host: String
        var port: Int
        var path: String

        init(host: String, port: Int, path: String) {
            self.host = host
            self.port = port
            self.path = path
        }

        /// `http://host[:port][/path]`; `[v6]` hosts allowed. No https: the probe runs beside the server.
        init(url: String) throws {
            guard url.hasPrefix("http://") else { throw CommandFailure(message: "\(url): only http:// URLs can be checked") }
            let rest = url.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" }
            path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/healthz"
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let tail = authority[authority.index(after: close)...]
                port = tail.hasPrefix(":") ? Int(tail.dropFirst()) ?? -1 : 80
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                port = Int(authority[authority.index(after: colon)...]) ?? -1
            } else {
                host = String(authority)
                port = 80
            }
            guard !host.isEmpty, (1 ... 65535).contains(port) else { throw CommandFailure(message: "\(url): expected http://HOST:PORT/PATH") }
        }

        var description: String { host.contains(":") ? "http://[\(host)]:\(port)\(path)" : "http://\(host):\(port)\(path)" }
    }

    /// The status code of `GET target.path`, or an error when nothing answers within `timeout` seconds.
    static func status(of target: Target, timeout: Double) throws -> Int {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard rc == 0, let ai = list else { throw CommandFailure(message: "\(target.host): \(String(cString: gai_strerror(rc)))") }
        defer { freeaddrinfo(list) }
        let fd = try syscall("socket") { socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))   // also bounds connect
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        try syscall("connect(\(target.description))") { connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) }
        let hostHeader = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        let request = Array("GET \(target.path) HTTP/1.1\r\nHost: \(hostHeader)\r\nConnection: close\r\nUser-Agent: tileserver-healthcheck\r\n\r\n".utf8)
        try request.withUnsafeBytes { bytes in try Posix.writeAll(fd, bytes) }
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !head.contains(UInt8(ascii: "\n")), head.count < 1024 {
            let count = try chunk.withUnsafeMutableBytes { buffer in try Posix.read(fd, into: buffer) }
            guard let count else { throw CommandFailure(message: "\(target.description): no answer within \(timeout) s") }
            if count == 0 { break }
            head += chunk[..<count]
        }
        let line = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            throw CommandFailure(message: "\(target.description): not an HTTP answer: \(line.prefix(80))")
        }
        return code
    }
}
