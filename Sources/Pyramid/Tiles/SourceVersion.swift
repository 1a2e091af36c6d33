import POSIXSupport
import ImageCodecs

/// A short fingerprint of one version of an image's source, for URLs that may be cached forever: the file's size,
/// its modification time and an FNV-1a hash of its first and last 16 KiB. A replaced photo gets a new version
/// even when a copy kept the old size and time (its first compressed rows differ). 32 KiB hash in about 30 µs, so
/// listing 100,000 images is not bound by their versions.
package enum SourceVersion {
    /// Bytes hashed at each end of the file.
    static let sampleBytes = 16 << 10

    /// Twelve lowercase hex digits. Kept colours (`--colour keep`) make other tiles of the same file, so they
    /// are another version: no tile stored or cached under one setting is served under the other.
    /// An object in object storage (its stamp has an ETag hash) is versioned by its size and ETag, which changes
    /// with its content: no bytes are read.
    package static func of(path: String, stamp: FileStamp, keepsColourProfiles: Bool = false) throws(ImageSourceError) -> String {
        let fileSize = stamp.size
        var hash = FNV1a()
        hash.add(fileSize)
        hash.add(stamp.tag != 0 ? Int64(bitPattern: stamp.tag) : stamp.modified)
        if keepsColourProfiles { hash.add(Array("colour keep".utf8)) }
        if stamp.tag != 0 { return hash.hex12 }
        do {
            let file = try FileDescriptor(readingAt: path)
            let head = Int(min(fileSize, Int64(sampleBytes)))
            hash.add(words: try file.read(count: head, at: 0))
            if fileSize > Int64(head) {
                let tail = Int(min(fileSize - Int64(head), Int64(sampleBytes)))
                hash.add(words: try file.read(count: tail, at: fileSize - Int64(tail)))
            }
        } catch {
            throw ImageSourceError.cannotOpen(path: path, reason: error.description) // the error users see, typed
        }
        return hash.hex12
    }

    /// The version of a source with no file behind it (a synthetic image): its kind and size.
    package static func of(synthetic source: any ImageSource) -> String {
        var hash = FNV1a()
        hash.add(Array(source.kind.utf8))
        hash.add(Int64(source.info.width))
        hash.add(Int64(source.info.height))
        return hash.hex12
    }
}
