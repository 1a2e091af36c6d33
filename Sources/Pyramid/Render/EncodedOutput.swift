import POSIXSupport

/// An encoded region or view image: in memory, or spooled to an unnamed file (never visible, gone when the
/// descriptor closes) when it was made in bands, for the server to send with `sendfile`.
package enum EncodedOutput: Sendable {
    case bytes([UInt8])
    case file(FileDescriptor, length: Int)

    var length: Int {
        switch self {
        case let .bytes(bytes): bytes.count
        case let .file(_, length): length
        }
    }

    /// The bytes, read back from the file if spooled (for tests and small outputs).
    func readAll() throws -> [UInt8] {
        switch self {
        case let .bytes(bytes): return bytes
        case let .file(fd, length): return try fd.read(count: length, at: 0)
        }
    }
}
