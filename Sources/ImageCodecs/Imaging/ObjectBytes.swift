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
    /// Asks the store about `path` again, after a read found it replaced. Blocking.
    func refresh(_ path: String)
    /// The object's stamp as last seen (size, time, a hash of its tag), at no request; nil when it is not known to
    /// exist.
    func stamp(of path: String) -> FileStamp?
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
