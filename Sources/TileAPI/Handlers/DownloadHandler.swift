import HTTPTransport
import ImageCodecs
import Library
import ObjectStorage
import POSIXSupport
import Pyramid

/// `/images/{id}/original`: the master file itself, its own bytes, type and name, as a download. Sent with
/// `sendfile` from the file as it is now (a file replaced meanwhile is the new one: the ETag says which). Only
/// someone who may see the whole image at full size gets it: for a tiered image it is refused like any picture
/// larger than the public size, and a folder may refuse originals to all (`download = false`). An object in object
/// storage is copied first, 8 MiB a GET of the version being served, into an unlinked scratch file (`--raster-dir`):
/// memory stays flat whatever its size. While `--publish-location` is off, where the photo was taken is removed
/// first (`LocationScrubber`: EXIF GPS, XMP and IPTC places overwritten in place in a scratch copy, nothing
/// re-encoded); a file that may say it in a form that cannot be removed is not sent.
struct DownloadHandler {
    let tiles: TileService
    let library: ImageLibrary
    let publishLocation: Bool
    let objects: RemoteObjects?

    init(_ services: Services) {
        tiles = services.tiles
        library = services.library
        publishLocation = services.options.publishLocation
        objects = services.objects
    }

    func original(_ context: RequestContext) throws -> HandlerOutcome {
        let image = try context.admitted(), id = image.id
        try image.requireOriginal()
        let snapshot = try image.current()
        guard !image.masterPath.isEmpty, snapshot.source.kind != "procedural" else {
            throw APIError.notFound("image '\(id)' is made by the server and has no original file")
        }
        return try send(image.masterPath, etag: snapshot.version, id: id, context)
    }

    /// `/images/{id}/raw`: the shot's camera raw (`CameraCard`): the raw beside the photo, or the raw the image is
    /// (listed "RAW without a preview"). The same rules as the original: all of the image, downloads allowed, and
    /// the place the photo was taken removed while `--publish-location` is off.
    func raw(_ context: RequestContext) throws -> HandlerOutcome {
        let image = try context.admitted(), id = image.id
        try image.requireOriginal()
        guard let path = library.companions(of: id)?.raw ?? (CameraCard.isRaw(image.masterPath) ? image.masterPath : nil) else {
            throw APIError.notFound("image '\(id)' has no camera raw beside it")
        }
        guard let stamp = tiles.options.files.stamp(path) else { throw APIError.notFound("the raw of '\(id)' is gone: it was moved or removed") }
        return try send(path, etag: "\(stamp.size)-\(stamp.modified)", id: id, context)
    }

    /// The file at `path` as a download under its own name and type, tagged `etag`.
    private func send(_ path: String, etag: String, id: String, _ context: RequestContext) throws -> HandlerOutcome {
        let file: FileDescriptor
        if S3Location.isRemote(path) {
            file = try Self.spool(path, from: objects, into: tiles.options.rasterDirectory)
        } else {
            do { file = try FileDescriptor(readingAt: path) } catch {
                throw APIError.notFound("the original of '\(id)' is gone: it was moved or removed")
            }
        }
        let (sent, size) = try publishLocation ? (file, file.status().size)
            : Self.withoutLocation(file, remote: S3Location.isRemote(path), scratch: tiles.options.rasterDirectory, id: id,
                                   head: context.request.isHead)
        let name = PathText.lastComponent(of: path)
        var response = HTTPResponse(contentType: Self.mimeType(ofFile: name), body: [], headers: [
            HTTPHeader(name: "Content-Disposition", value: Self.disposition(name)),
            HTTPHeader(name: "ETag", value: "\"\(etag)\""),
            HTTPHeader(name: "Cache-Control", value: "no-cache"),
        ])
        response.file = FileBody(descriptor: sent, length: Int(size))
        return .response(response.conditional(on: context.request))
    }

    static let spoolChunk = 8 << 20

    /// `file` as sent to someone who may not know where the photo was taken: itself when it says nothing of it,
    /// else a scratch copy (or the spool of a remote object, `remote`) with the location overwritten. A `head`
    /// request gets the same answer without the copy: the length is the same and no byte is sent.
    static func withoutLocation(_ file: FileDescriptor, remote: Bool, scratch: String, id: String, head: Bool) throws -> (FileDescriptor, Int64) {
        let size = try file.status().size
        let outcome = try LocationScrubber.scrub(size: size) { offset, count in
            guard offset >= 0, offset < size, count > 0 else { return [] }
            return try file.read(count: Int(min(Int64(count), size - offset)), at: offset)
        }
        switch outcome {
        case .clean:
            return (file, size)
        case .patches where head:
            return (file, size)
        case let .cannot(why):
            throw APIError.forbidden("the original of '\(id)' is not sent: it may say where the photo was taken, and \(why), so it cannot be removed")
        case let .patches(patches):
            let copy = remote ? file : try FileDescriptor(anonymousIn: scratch)
            if !remote {
                var offset: Int64 = 0
                while offset < size {
                    let bytes = try file.read(count: Int(min(Int64(spoolChunk), size - offset)), at: offset)
                    guard !bytes.isEmpty else { break }
                    try copy.write(bytes, at: offset)
                    offset += Int64(bytes.count)
                }
            }
            for patch in patches { try copy.write(patch.bytes, at: patch.offset) }
            return (copy, size)
        }
    }

    /// The object at `path` in an unlinked file of `directory`, read in ranged GETs of one version.
    static func spool(_ path: String, from objects: RemoteObjects?, into directory: String) throws -> FileDescriptor {
        guard let object = S3Location(path) else { throw APIError.notFound("no such object: \(path)") }
        let file = try FileDescriptor(anonymousIn: directory)
        do {
            let objects = try RemoteObjects.required(objects, for: path)
            let head = try objects.head(path: path)
            var offset: Int64 = 0
            while offset < head.size {
                let bytes = try objects.client.get(bucket: object.bucket, key: object.prefix, offset: offset,
                                                   count: Int(min(Int64(spoolChunk), head.size - offset)), etag: head.etag)
                guard !bytes.isEmpty else { break }
                try bytes.withUnsafeBytes { try Posix.writeAll(file.rawValue, $0) }
                offset += Int64(bytes.count)
            }
            return file
        } catch let error as ObjectStorageError {
            switch error {
            case let .unavailable(_, _, reason): throw ImageSourceError.unavailable(path: path, reason: reason)
            case .preconditionFailed: throw ImageSourceError.changed(path: path)
            default: throw APIError.notFound("the original of \(path) cannot be read: \(error)")
            }
        }
    }

    /// The type a file's extension names; `application/octet-stream` for any other.
    static func mimeType(ofFile name: String) -> String {
        let ext = name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
        switch ext {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "tif", "tiff": return "image/tiff"
        case "jp2": return "image/jp2"
        case "j2k", "j2c": return "image/j2k"
        case "webp": return "image/webp"
        case "jph": return "image/jph"
        case "heic", "heif", "hif": return "image/heic"
        case "avif": return "image/avif"
        default: return "application/octet-stream"
        }
    }

    /// `attachment` with the name twice (RFC 6266): an ASCII fallback (`_` for anything else, quotes and
    /// backslashes too) and the UTF-8 name percent-encoded (RFC 8187), which every current browser uses.
    static func disposition(_ name: String) -> String {
        let fallback = String(name.unicodeScalars.map { s -> Character in
            s.isASCII && s.value >= 0x20 && s.value < 0x7F && s != "\"" && s != "\\" ? Character(s) : "_"
        })
        // RFC 8187's attr-char set holds URLPath.escape's unreserved bytes, so its escaping is valid here.
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(URLPath.escape(name))"
    }
}
