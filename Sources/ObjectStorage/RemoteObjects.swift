import POSIXSupport

/// An object store as the server reads it: the client `s3://` paths are read through, and what is known of each
/// object (size, ETag, modification time) from the last listing of its folder or its last HEAD. A stamp asked for
/// here costs no request, so it can be asked for wherever a local file would be `stat`ed. Made by the executable
/// when a path is in object storage and handed to what reads such paths; there is no process-wide one.
package final class RemoteObjects: Sendable {
    package let client: S3Client
    private let known = Locked<[String: S3Client.ObjectHead]>([:])

    package init(client: S3Client) {
        self.client = client
    }

    /// `objects`, or the error a path in object storage gets without a store.
    package static func required(_ objects: RemoteObjects?, for path: String) throws(ObjectStorageError) -> RemoteObjects {
        guard let objects else {
            throw .notConfigured("\(path): object storage is not configured (set \(S3Configuration.summary))")
        }
        return objects
    }

    /// Makes what is known under `location` the listing `entries` (objects gone from it are forgotten).
    package func record(_ entries: [ObjectListing.Entry], under location: S3Location) {
        let base = location.path(ofKey: location.listPrefix)
        known.withLock { table in
            table = table.filter { !$0.key.hasPrefix(base) }
            for entry in entries {
                table[location.path(ofKey: entry.key)] = S3Client.ObjectHead(size: entry.size, etag: entry.etag,
                                                                             lastModified: entry.lastModified)
            }
        }
    }

    /// The object at `path` as last seen, asking the store (HEAD) when it has not been seen. Blocking.
    package func head(path: String) throws(ObjectStorageError) -> S3Client.ObjectHead {
        if let head = known.withLock({ $0[path] }) { return head }
        return try refresh(path: path)
    }

    /// Asks the store for the object at `path` now and records the answer (a 404 forgets it). Blocking.
    @discardableResult
    package func refresh(path: String) throws(ObjectStorageError) -> S3Client.ObjectHead {
        guard let object = S3Location(path), !object.prefix.isEmpty else { throw .notFound(bucket: "", key: path) }
        do {
            let head = try client.head(bucket: object.bucket, key: object.prefix)
            known.withLock { $0[path] = head }
            return head
        } catch {
            if case .notFound = error { _ = known.withLock { $0.removeValue(forKey: path) } }
            throw error
        }
    }

    /// The stamp of the object at `path` as last seen (size, modification time, a hash of its ETag), or nil
    /// when it is not known to exist. No request.
    package func stamp(path: String) -> FileStamp? {
        known.withLock { $0[path] }.map(Self.stamp)
    }

    package static func stamp(_ head: S3Client.ObjectHead) -> FileStamp {
        FileStamp(size: head.size, modified: HTTPDate.nanoseconds(head.lastModified) ?? 0, tag: FNV1a(Array(head.etag.utf8)).value)
    }
}
