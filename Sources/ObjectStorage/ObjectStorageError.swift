/// What a request to object storage ended in when it gave no object. Messages name the bucket and key, never a
/// credential or the store's own error body.
package enum ObjectStorageError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// The store could not be reached, timed out or answered 5xx, after the retries: try again later.
    case unavailable(bucket: String, key: String, reason: String)
    /// 401 or 403: the credentials are missing, wrong, or not allowed this object.
    case denied(bucket: String, key: String, status: Int)
    /// 404: no such bucket or key.
    case notFound(bucket: String, key: String)
    /// 412: the object is no longer the version asked for (replaced), or, on a conditional write, already there.
    case preconditionFailed(bucket: String, key: String)
    /// Any other answer the request cannot use.
    case unexpected(bucket: String, key: String, status: Int)
    /// A listing the store sent that is not ListObjectsV2's XML.
    case badListing(bucket: String, reason: String)
    /// No object storage is configured for `s3://` paths, or the configuration is unusable.
    case notConfigured(String)

    package var description: String {
        switch self {
        case let .unavailable(bucket, key, reason):
            "object storage unavailable for s3://\(bucket)/\(key): \(reason)"
        case let .denied(bucket, key, status):
            "object storage refused s3://\(bucket)/\(key) (HTTP \(status)): check the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE) and the bucket's policy"
        case let .notFound(bucket, key):
            "no object s3://\(bucket)/\(key) (HTTP 404): check the bucket and key"
        case let .preconditionFailed(bucket, key):
            "s3://\(bucket)/\(key) changed while being read (HTTP 412)"
        case let .unexpected(bucket, key, status):
            "object storage answered HTTP \(status) for s3://\(bucket)/\(key)"
        case let .badListing(bucket, reason):
            "object storage sent a listing of s3://\(bucket) that cannot be read: \(reason)"
        case let .notConfigured(reason):
            reason
        }
    }

    /// True for what a later try may get past (an outage), false for an answer about the object itself.
    package var isTransient: Bool {
        if case .unavailable = self { return true }
        return false
    }
}
