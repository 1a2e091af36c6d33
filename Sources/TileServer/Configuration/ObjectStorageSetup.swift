import ImageCodecs
import ObjectStorage

/// The process's object storage, installed when a command is given an `s3://` path: where and who from the
/// environment as AWS tools take them (`S3Configuration.fromEnvironment`).
enum ObjectStorageSetup {
    /// Installs it when any of `paths` is in object storage; returns the configuration installed, or nil.
    @discardableResult
    static func install(for paths: [String], addressing: S3Configuration.Addressing = .auto, timeout: Double = 10,
                        cacheBytes: Int = 256 << 20) -> S3Configuration? {
        guard paths.contains(where: S3Location.isRemote) else { return nil }
        var s3 = S3Configuration.fromEnvironment(Environment.variables, addressing: addressing)
        s3.timeoutSeconds = timeout
        RemoteObjects.install(RemoteObjects(client: S3Client(configuration: s3)))
        ImageInput.configureObjectCache(budget: cacheBytes)
        return s3
    }
}
