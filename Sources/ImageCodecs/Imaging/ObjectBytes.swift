import POSIXSupport

/// A store of objects that image paths (`s3://bucket/key`) name, as the codecs read them: what is known of an
/// object, and its bytes by range while it is still that version. The codecs never import object storage; its
/// client is one of these because the executable says so (`ImageFiles(objects:)`).
package protocol ObjectBytes: AnyObject, Sendable {
    /// The object at `path` as last seen, asking the store when it has not been seen. Blocking.
    func version(of path: String) throws(ObjectReadError) -> ObjectVersion
    /// `count` bytes at `offset` of the object at `path`, only while it is `version` (a replaced object is
    /// `.changed`); fewer only at its end. Blocking.
    func bytes(of path: String, offset: Int64, count: Int, version: ObjectVersion) throws(ObjectReadError) -> [UInt8]
    /// The bytes at `offset` of the object at `path` into `buffers`, each filled before the next (together the
    /// range asked for, every buffer but the last as long as the first), only while it is `version`: the count
    /// that came, fewer only at its end. Blocking. A store's client receives them there straight from the network
    /// (by default: `bytes(of:offset:count:version:)`, copied).
    func read(of path: String, offset: Int64, into buffers: [UnsafeMutableRawBufferPointer], version: ObjectVersion) throws(ObjectReadError) -> Int
    /// Asks the store about `path` again, after a read found it replaced. Blocking.
    func refresh(_ path: String)
    /// The object's stamp as last seen (size, time, a hash of its tag), at no request; nil when it is not known to
    /// exist.
    func stamp(of path: String) -> FileStamp?
}

extension ObjectBytes {
    package func read(of path: String, offset: Int64, into buffers: [UnsafeMutableRawBufferPointer],
                      version: ObjectVersion) throws(ObjectReadError) -> Int {
        let bytes = try self.bytes(of: path, offset: offset, count: buffers.reduce(0) { $0 + $1.count }, version: version)
        var at = 0
        for buffer in buffers where at < bytes.count {
            let n = min(buffer.count, bytes.count - at)
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + at, byteCount: n) }
            at += n
        }
        return at
    }
}

/// One version of an object: its size, the tag that names this version (an ETag), and its stamp.
package struct ObjectVersion: Sendable, Equatable {
    package let size: Int64
    package let tag: String
    package let stamp: FileStamp

    package init(size: Int64, tag: String, stamp: FileStamp) {
        (self.size, self.tag, self.stamp) = (size, tag, stamp)
    }
}

/// Why an object's bytes could not be read.
package enum ObjectReadError: Error, Sendable {
    /// The store did not answer (an outage): asking again later may succeed.
    case unavailable(reason: String)
    /// The object is no longer the version being read.
    case changed
    /// Anything else: no such object, refused, not configured.
    case failed(reason: String)
}
