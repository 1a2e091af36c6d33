import ObjectStorage
import ImageCodecs
import POSIXSupport

/// A tile store shared by every replica: each tile an object under `s3://bucket/prefix/`, named as on disk. An
/// object is written whole by one PUT (a reader sees all of it or none), and only once: `If-None-Match: *`, so two
/// replicas cutting the same tile store one copy (a store that ignores the condition overwrites it with the same
/// bytes). The pass markers are objects too, so a pyramid another replica is still cutting is never taken for a
/// complete one. No byte budget: the bucket's lifecycle rule (expiry after some days) bounds it, and a tile expired
/// under a finished pass is decoded again on demand.
///
/// Tiles are written in the background (`ObjectStoreWriter`); a pass's end marker too, once its tiles are. A store
/// that does not answer is a slower store, not a failure: reads miss and writes are dropped, and while the client
/// is quiet after an outage (`StorageHealth.quietSeconds`) no request is sent and no write is queued, so an outage
/// adds no timeouts to the answers that decode their tiles meanwhile.
final class ObjectStore: StoreBackend {
    let location: String
    private let objects: RemoteObjects
    private let bucket: String
    private let prefix: String
    /// Tiles this process stored or found stored: asked about again (a pass checks before it encodes each tile)
    /// without a request. Other tiles are taken as absent and written conditionally, which costs no more than a
    /// HEAD when another replica stored them first.
    private let known = Locked<Set<String>>([])
    static let knownLimit = 1 << 20
    /// Markers and tiles found absent, and when: asked again only after `absentFor` seconds (a pass asks for a
    /// marker each tile; a region's tiles are read together first, then one by one, and those the store lacks are
    /// not asked for twice). At most `absentLimit` remembered.
    private let absent = Locked<[String: Double]>([:])
    static let absentFor = 2.0
    static let absentLimit = 1 << 16
    private let writer: ObjectStoreWriter
    /// Tiles this process wrote lately, read back without a GET (a pass stores what it cuts rather than caching it,
    /// and requests then read it back from the store): the last `recentBytes` of them.
    private let recent = LRUCache<String, [UInt8]>(budget: ObjectStore.recentBytes, cost: { $0.count + 64 })
    static let recentBytes = 64 << 20

    init(objects: RemoteObjects, location: S3Location) {
        self.objects = objects
        self.location = location.description
        bucket = location.bucket
        prefix = location.listPrefix
        let (bucket, prefix, recent) = (bucket, prefix, recent)
        writer = ObjectStoreWriter { name, bytes in
            // Tiles once (`If-None-Match: *`), read back from memory after; a marker as it is.
            let tile = !Self.isMarker(name)
            if (try? objects.client.put(bucket: bucket, key: prefix + name, bytes: bytes, contentType: Self.contentType(name), ifAbsent: tile)) != nil,
               tile {
                _ = recent.insert(bytes, for: name)
            }
        }
    }

    static func contentType(_ name: String) -> String {
        name.hasSuffix(".jpg") ? "image/jpeg" : name.hasSuffix(".png") ? "image/png" : name.hasSuffix(".webp") ? "image/webp"
            : name.hasSuffix(".avif") ? "image/avif" : "application/octet-stream"
    }

    /// `body`'s result, or nil when the store refused or did not answer (the client fails at once while quiet
    /// after an outage).
    private func attempt<T>(_ body: () throws(ObjectStorageError) -> T) -> T? {
        do { return try body() } catch { return nil }
    }

    func contents(_ name: String) -> [UInt8]? {
        if let waiting = writer.pending(name) ?? recent.value(for: name, countingMiss: false) { return waiting }
        if lately(absent: name) { return nil }
        let bytes = attempt { () throws(ObjectStorageError) in try objects.client.getObject(bucket: bucket, key: prefix + name, maxBytes: 64 << 20) } ?? nil
        if bytes != nil { remember(name) } else { noteAbsent(name) }
        return bytes
    }

    /// Whether `name` was found absent less than `absentFor` seconds ago.
    private func lately(absent name: String) -> Bool {
        guard let seen = absent.withLock({ $0[name] }) else { return false }
        return MonotonicClock.seconds() - seen < Self.absentFor
    }

    private func noteAbsent(_ name: String) {
        absent.withLock {
            if $0.count >= Self.absentLimit { $0.removeAll() }
            $0[name] = MonotonicClock.seconds()
        }
    }

    private func remember(_ name: String) {
        absent.withLock { _ = $0.removeValue(forKey: name) }
        known.withLock {
            if $0.count >= Self.knownLimit { $0.removeAll() }
            $0.insert(name)
        }
    }

    private static func isMarker(_ name: String) -> Bool { name.hasSuffix(".started") || name.hasSuffix(".done") }

    func write(_ bytes: [UInt8], as name: String) throws {
        guard Self.isMarker(name) else {
            guard !objects.client.health.isQuiet, writer.enqueue(name, bytes) else {
                // Not kept in the shared store, but this process keeps it among the recent tiles: a pass cutting
                // faster than the store takes PUTs does not leave its requests to decode the same tiles again.
                _ = recent.insert(bytes, for: name)
                throw ObjectStorageError.unavailable(bucket: bucket, key: prefix + name, reason: "not written")
            }
            remember(name)
            return
        }
        if name.hasSuffix(".done") {
            // The end marker says every tile of the pass is there: the writers PUT it once the writes queued before
            // it are done, and the pass goes on to the next at once however slow the store's PUTs (its tiles are
            // read back from the queue meanwhile). This process knows the pass is done now.
            writer.enqueueAfterQueued(name, bytes)
            absent.withLock { $0[name] = nil }
            remember(name)
            return
        }
        guard attempt({ () throws(ObjectStorageError) in
            try objects.client.put(bucket: bucket, key: prefix + name, bytes: bytes, contentType: Self.contentType(name))
        }) != nil else { throw ObjectStorageError.unavailable(bucket: bucket, key: prefix + name, reason: "not written") }
        absent.withLock { $0[name] = nil }
        remember(name)
    }

    func exists(_ name: String) -> Bool {
        if known.withLock({ $0.contains(name) }) { return true }
        guard Self.isMarker(name) else { return false }
        if lately(absent: name) { return false }
        let found = attempt { () throws(ObjectStorageError) -> Bool in
            do throws(ObjectStorageError) { _ = try objects.client.head(bucket: bucket, key: prefix + name); return true } catch {
                if case .notFound = error { return false }
                throw error
            }
        } ?? false
        if found { remember(name) } else { noteAbsent(name) }
        return found
    }

    func remove(_ name: String) {
        _ = known.withLock { $0.remove(name) }
        _ = recent.remove(name)
        _ = attempt { () throws(ObjectStorageError) in try objects.client.delete(bucket: bucket, key: prefix + name) }
    }

    func removeAll(under folder: String) {
        // Off the caller's thread: a listing and a DELETE an object, for an image every replica has dropped.
        _ = recent.removeAll { $0.hasPrefix(folder + "/") }
        let (objects, bucket, prefix) = (objects, bucket, prefix)
        startDetachedThread {
            guard let entries = try? objects.client.list(bucket: bucket, prefix: prefix + folder + "/") else { return }
            for entry in entries { try? objects.client.delete(bucket: bucket, key: entry.key) }
        }
    }

    func names(under folder: String) -> Set<String>? {
        guard let entries = attempt({ () throws(ObjectStorageError) in try objects.client.list(bucket: bucket, prefix: prefix + folder + "/") })
        else { return nil }
        return Set(entries.map { String($0.key.dropFirst(prefix.count)) })
    }

    /// The tiles still queued, and the end markers waiting on them, are written before the process exits (for at
    /// most 10 s).
    func flush() { writer.drain(timeout: 10) }

    var droppedWrites: Int { writer.dropped }

    /// Nothing to count (no budget) and no pass to resume: a pass started and not done may be running on another
    /// replica; a tile it never stored is made when asked for.
    func scan() -> (tiles: [StoreScan.Tile], interrupted: [StoredPass]) { ([], []) }
}
