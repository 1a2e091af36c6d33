import CImageIO
import POSIXSupport
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of an image file, as every decoder reads them: a local file through its descriptor (pread), or an
/// object in object storage (`s3://bucket/key`) through ranged GETs and the shared block cache (`RemoteFile`).
/// The decoders get `raw`, which they copy; this object must outlive them, so readers hold it.
package final class ImageInput: @unchecked Sendable {
    package let path: String
    private let file: FileDescriptor?
    private let remote: RemoteFile?
    private let raw: tsio_input

    /// Where it was opened from, so that a source reopens it the same way (`files.open(path)`).
    package let files: ImageFiles

    /// Opens `path` for reading, failing with the image error users see (`ImageFiles.open`).
    static func open(_ path: String, files: ImageFiles) throws(ImageSourceError) -> ImageInput {
        if ImageFiles.isObject(path) { return try ImageInput(path: path, remote: RemoteFile.open(path, objects: files.objects), files: files) }
        do { return ImageInput(path: path, file: try FileDescriptor(readingAt: path), files: files) } catch {
            throw .cannotOpen(path: path, reason: error.description)
        }
    }

    private init(path: String, file: FileDescriptor, files: ImageFiles) {
        self.path = path
        self.files = files
        self.file = file
        self.remote = nil
        raw = tsio_input(fd: file.rawValue, read: nil, context: nil, size: 0)
    }

    private init(path: String, remote: RemoteFile, files: ImageFiles) {
        self.path = path
        self.files = files
        self.file = nil
        self.remote = remote
        raw = tsio_input(fd: -1, read: { context, dst, count, offset in
            Unmanaged<RemoteFile>.fromOpaque(context!).takeUnretainedValue().read(into: dst!, count: count, at: offset)
        }, context: Unmanaged.passUnretained(remote).toOpaque(), size: UInt64(remote.version.size))
    }

    /// Sets the byte budget of the blocks of objects kept in memory (it starts empty).
    public static func configureObjectCache(budget: Int) {
        RemoteFile.configure(budget: budget)
    }

    /// For an object: fetches its last `bytes` at once (a TIFF's directories). Nothing for a local file.
    package func prefetchTail(_ bytes: Int) {
        remote?.prefetchTail(bytes)
    }

    /// Runs `body` with the input as the C decoders take it.
    package func withRaw<Result>(_ body: (UnsafePointer<tsio_input>) throws -> Result) rethrows -> Result {
        try withUnsafePointer(to: raw) { try body($0) }
    }

    /// The file's size, modification time and (for an object) ETag hash, as read now.
    package func stamp() throws(ImageSourceError) -> FileStamp {
        if let remote { return remote.version.stamp }
        do {
            let status = try file!.status()
            return FileStamp(size: status.size, modified: status.modified)
        } catch { throw .cannotOpen(path: path, reason: error.description) }
    }

    /// `count` bytes at `offset` (fewer at the end of the file).
    package func read(count: Int, at offset: Int64) throws(ImageSourceError) -> [UInt8] {
        guard count > 0 else { return [] }
        if let remote {
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBufferPointer { remote.read(into: $0.baseAddress!, count: count, at: UInt64(offset)) }
            guard n >= 0 else { throw RemoteFile.takeFailure(path: path) ?? .cannotOpen(path: path, reason: "read failed") }
            return Array(bytes.prefix(Int(n)))
        }
        do { return try file!.read(count: count, at: offset) } catch { throw .cannotOpen(path: path, reason: error.description) }
    }
}
