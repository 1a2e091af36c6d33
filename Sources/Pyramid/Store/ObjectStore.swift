import ObjectStorage
import POSIXSupport

/// A tile store shared by every replica: each tile an object under `s3://bucket/prefix/`, named as on disk. An
/// object is written whole by one PUT (a reader sees all of it or none), and only once: `If-None-Match: *`, so two
/// replicas cutting the same tile store one copy (a store that ignores the condition overwrites it with the same
/// bytes). The pass markers are objects too, so a pyramid another replica is still cutting is never taken for a
/// complete one. No byte budget: the bucket's lifecycle rule (expiry after some days) bounds it, and a tile expired
/// under a finished pass is decoded again on demand.
///
/// A store that does not answer is a slower store, not a failure: reads miss and writes are dropped, and for
/// `quietAfterFailure` seconds after a request failed no other is sent, so an outage adds no timeouts to the
/// answers that decode their tiles meanwhile.
final class ObjectStore: StoreBackend {
    let location: String
    private let objects: RemoteObjects
    private let bucket: String
    private let prefix: String
    static let quietAfterFailure = 5.0
    private let lastFailure = Locked<Double>(-.infinity)
    /// Tiles this process stored or found stored: asked about again (a pass checks before it encodes each tile)
    /// without a request. Other tiles are taken as absent and written conditionally, which costs no more than a
    /// HEAD when another replica stored them first.
    private let known = Locked<Set<String>>([])
    static let knownLimit = 1 << 20

    init(objects: RemoteObjects, location: S3Location) {
        self.objects = objects
        self.location = location.description
        bucket = location.bucket
        prefix = location.listPrefix
    }

    private var quiet: Bool { MonotonicClock.seconds() - lastFailure.withLock { $0 } < Self.quietAfterFailure }

    /// Runs `body` unless the store failed a moment ago; an outage starts the quiet time.
    private func attempt<T>(_ body: () throws(ObjectStorageError) -> T) -> T? {
        guard !quiet else { return nil }
        do { return try body() } catch {
            if error.isTransient { lastFailure.withLock { $0 = MonotonicClock.seconds() } }
            return nil
        }
    }

    func contents(_ name: String) -> [UInt8]? {
        let bytes = attempt { () throws(ObjectStorageError) in try objects.client.getObject(bucket: bucket, key: prefix + name, maxBytes: 64 << 20) } ?? nil
        if bytes != nil { remember(name) }
        return bytes
    }

    private func remember(_ name: String) {
        known.withLock {
            if $0.count >= Self.knownLimit { $0.removeAll() }
            $0.insert(name)
        }
    }

    private static func isMarker(_ name: String) -> Bool { name.hasSuffix(".started") || name.hasSuffix(".done") }

    func write(_ bytes: [UInt8], as name: String) throws {
        let type = name.hasSuffix(".jpg") ? "image/jpeg" : name.hasSuffix(".png") ? "image/png"
            : name.hasSuffix(".webp") ? "image/webp" : "application/octet-stream"
        let marker = Self.isMarker(name)
        guard attempt({ () throws(ObjectStorageError) in
            try objects.client.put(bucket: bucket, key: prefix + name, bytes: bytes, contentType: type, ifAbsent: !marker)
        }) != nil else { throw ObjectStorageError.unavailable(bucket: bucket, key: prefix + name, reason: "not written") }
        if !marker { remember(name) }
    }

    func exists(_ name: String) -> Bool {
        guard Self.isMarker(name) else { return known.withLock { $0.contains(name) } }
        return attempt { () throws(ObjectStorageError) -> Bool in
            do throws(ObjectStorageError) { _ = try objects.client.head(bucket: bucket, key: prefix + name); return true } catch {
                if case .notFound = error { return false }
                throw error
            }
        } ?? false
    }

    func remove(_ name: String) {
        _ = known.withLock { $0.remove(name) }
        _ = attempt { () throws(ObjectStorageError) in try objects.client.delete(bucket: bucket, key: prefix + name) }
    }

    func removeAll(under folder: String) {
        // Off the caller's thread: a listing and a DELETE an object, for an image every replica has dropped.
        let (objects, bucket, prefix) = (objects, bucket, prefix)
        startDetachedThread {
            guard let entries = try? objects.client.list(bucket: bucket, prefix: prefix + folder + "/") else { return }
            for entry in entries { try? objects.client.delete(bucket: bucket, key: entry.key) }
        }
    }

    /// Nothing to count (no budget) and no pass to resume: a pass started and not done may be running on another
    /// replica; a tile it never stored is made when asked for.
    func scan() -> (tiles: [StoreScan.Tile], interrupted: [StoredPass]) { ([], []) }
}
