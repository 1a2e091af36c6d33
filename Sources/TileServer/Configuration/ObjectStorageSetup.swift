import ImageCodecs
import ObjectStorage
import POSIXSupport

/// Object storage for a command given an `s3://` path: where and who from the environment as AWS tools take them
/// (`S3Configuration.fromEnvironment`). What it makes is handed to what reads such paths: the library's listings
/// (`objects`), the codecs (`files`), the handlers (originals, health); nothing is installed process-wide.
struct ObjectStorageSetup {
    let configuration: S3Configuration
    let objects: RemoteObjects

    /// Where images are read from: local files, and objects through `objects` when any path needs them.
    static func files(_ setup: ObjectStorageSetup?) -> ImageFiles {
        ImageFiles(objects: setup.map { StoredObjectBytes($0.objects) })
    }

    /// The setup when any of `paths` is in object storage, or nil.
    static func make(for paths: [String], addressing: S3Configuration.Addressing = .auto, timeout: Double = 10,
                     cacheBytes: Int = 256 << 20, prefetch: Bool = true) -> ObjectStorageSetup? {
        guard paths.contains(where: S3Location.isRemote) else { return nil }
        ImageInput.configureObjectPrefetch(enabled: prefetch)
        var s3 = S3Configuration.fromEnvironment(Environment.variables, addressing: addressing)
        s3.timeoutSeconds = timeout
        ImageInput.configureObjectCache(budget: cacheBytes)
        return ObjectStorageSetup(configuration: s3, objects: RemoteObjects(client: S3Client(configuration: s3)))
    }
}

/// An object store as the codecs read it (`ObjectBytes`): the executable's wiring, so that the codecs never
/// import object storage and object storage knows nothing of images.
final class StoredObjectBytes: ObjectBytes {
    private let objects: RemoteObjects

    init(_ objects: RemoteObjects) {
        self.objects = objects
    }

    func version(of path: String) throws(ObjectReadError) -> ObjectVersion {
        guard let location = S3Location(path), !location.prefix.isEmpty else { throw .failed(reason: "not an object path (s3://bucket/key)") }
        do throws(ObjectStorageError) {
            let head = try objects.head(path: path)
            return ObjectVersion(size: head.size, tag: head.etag, stamp: RemoteObjects.stamp(head))
        } catch {
            throw Self.readError(error)
        }
    }

    func bytes(of path: String, offset: Int64, count: Int, version: ObjectVersion) throws(ObjectReadError) -> [UInt8] {
        try request(path) { client, location throws(ObjectStorageError) in
            try client.get(bucket: location.bucket, key: location.prefix, offset: offset, count: count, etag: version.tag)
        }
    }

    func read(of path: String, offset: Int64, into buffers: [UnsafeMutableRawBufferPointer],
              version: ObjectVersion) throws(ObjectReadError) -> Int {
        try request(path) { client, location throws(ObjectStorageError) in
            try client.get(bucket: location.bucket, key: location.prefix, offset: offset, into: buffers, etag: version.tag)
        }
    }

    /// `body` for the object `path` names, its errors as the codecs see them.
    private func request<T>(_ path: String, _ body: (S3Client, S3Location) throws(ObjectStorageError) -> T) throws(ObjectReadError) -> T {
        guard let location = S3Location(path), !location.prefix.isEmpty else { throw .failed(reason: "not an object path (s3://bucket/key)") }
        do throws(ObjectStorageError) {
            return try body(objects.client, location)
        } catch {
            throw Self.readError(error)
        }
    }

    func refresh(_ path: String) {
        _ = try? objects.refresh(path: path)
    }

    func stamp(of path: String) -> FileStamp? {
        objects.stamp(path: path)
    }

    private static func readError(_ error: ObjectStorageError) -> ObjectReadError {
        switch error {
        case let .unavailable(_, _, reason): .unavailable(reason: reason)
        case .preconditionFailed: .changed
        default: .failed(reason: error.description)
        }
    }
}
