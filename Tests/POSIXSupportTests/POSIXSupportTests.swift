import Glibc
import POSIXSupport
import XCTest

final class POSIXSupportTests: XCTestCase {
    func testSyscallErrorNamesTheCallAndErrno() {
        XCTAssertThrowsError(try FileDescriptor(readingAt: "/nonexistent/photo.jpg")) { error in
            let failure = error as? SyscallError
            XCTAssertEqual(failure?.errno, ENOENT)
            XCTAssertEqual(failure?.description, "open(/nonexistent/photo.jpg): No such file or directory")
        }
    }

    func testAnonymousFileRoundTripsThroughPread() throws {
        let file = try FileDescriptor(anonymousIn: NSTemporaryDirectory())
        let bytes: [UInt8] = Array("tile bytes".utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { pwrite(file.rawValue, $0.baseAddress, $0.count, 100) }, bytes.count)
        XCTAssertEqual(try file.read(count: bytes.count, at: 100), bytes)
        XCTAssertEqual(try file.status().size, 110)
    }

    func testPosixReadSaysWouldBlockAndEndOfStream() throws {
        var fds: [CInt] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds), 0)
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertNil(try buffer.withUnsafeMutableBytes { b throws(SyscallError) in try Posix.read(fds[0], into: b) }, "nothing waiting")
        let payload: [UInt8] = [1, 2, 3]
        var vector = payload.withUnsafeBytes { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: 3) }
        XCTAssertEqual(try withUnsafePointer(to: &vector) { v throws(SyscallError) in try Posix.writev(fds[1], UnsafeBufferPointer(start: v, count: 1)) }, 3)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { b throws(SyscallError) in try Posix.read(fds[0], into: b) }, 3)
        Posix.shutdown(fds[1], Int32(SHUT_WR))
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { b throws(SyscallError) in try Posix.read(fds[0], into: b) }, 0, "end of stream")
        Posix.close(fds[0])
        Posix.close(fds[1])
        XCTAssertThrowsError(try buffer.withUnsafeMutableBytes { b throws(SyscallError) in try Posix.read(fds[0], into: b) }) { error in
            XCTAssertEqual((error as? SyscallError)?.errno, EBADF)
        }
    }

    func testMonotonicClockMovesForward() {
        let a = MonotonicClock.nanoseconds()
        usleep(2000)
        XCTAssertGreaterThanOrEqual(MonotonicClock.nanoseconds() - a, 2_000_000)
    }
}
