import ObjectStorage
import POSIXSupport

/// What tells that an image file changed, without reading it: one `stat(2)` of a local file; for an object in
/// object storage, its size, time and ETag as its folder's last listing (or its last HEAD) saw them, at no request.
/// Nil when there is nothing there.
package enum SourceStamp {
    package static func of(_ path: String) -> FileStamp? {
        S3Location.isRemote(path) ? RemoteObjects.current?.stamp(path: path) : FileStamp.of(path)
    }
}

extension ImageSourceError {
    /// The `Retry-After` of an answer the outage of object storage prevented: a few retries' worth.
    package static let retryAfterSeconds = 5

    /// An outage rather than an answer about the file: not remembered as the file's failure, since asking again
    /// later may succeed.
    package var isTransient: Bool {
        switch self {
        case .unavailable, .changed: true
        default: false
        }
    }
}
