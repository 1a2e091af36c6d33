import POSIXSupport
import ImageCodecs
import Pyramid

/// What a listing says of an image: its size and version, read from the header alone. A few dozen bytes, kept
/// per listed image, so the header is read once per version of the file, not once per listing.
package struct ImageSummary: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `SourceVersion` of the file, as versioned URLs carry it.
    package let version: String
    /// The source's kind (`jpeg`, `png`, `procedural`).
    package let kind: String
    /// Whether the image has an alpha channel (a JPEG store keeps such images' tiles as PNG).
    package let hasAlpha: Bool
    /// The file's size and modification time when the header was read.
    let stamp: FileStamp
    /// What is shown of a file cut short, when it is (`CutShort.warning`).
    package let warning: String?
    /// What one pixel measures, in millimetres, where the header says so (`ImageInfo.millimetresPerPixel`).
    package let millimetresPerPixel: Double?

    package init(_ snapshot: PyramidImage.Snapshot) {
        width = snapshot.geometry.width
        height = snapshot.geometry.height
        version = snapshot.version
        kind = snapshot.source.kind
        hasAlpha = snapshot.source.info.hasAlpha
        stamp = snapshot.source.info.stamp
        warning = snapshot.source.info.cutShort?.warning
        millimetresPerPixel = snapshot.source.info.millimetresPerPixel
    }

    /// Reads the header and version of the file at `path`.
    init(path: String, limits: ImageLimits, files: ImageFiles) throws {
        let source = try ImageOpener.open(path, limits: limits, files: files)
        width = source.info.width
        height = source.info.height
        kind = source.kind
        hasAlpha = source.info.hasAlpha
        stamp = source.info.stamp
        warning = source.info.cutShort?.warning
        millimetresPerPixel = source.info.millimetresPerPixel
        version = try SourceVersion.of(path: path, stamp: stamp, keepsColourProfiles: limits.keepsColourProfiles)
    }
}

extension ImageLibrary {
    /// The summary of image `id`: from its pyramid object when it has one, else from the header, read again only
    /// when a `stat` (at most once per change-check interval, or after the watcher saw the file) finds it changed.
    package func summary(_ id: String) throws -> ImageSummary {
        guard let member = stateMember(id) else { throw TileServiceError.unknownImage(id) }
        if let image = member.image { return ImageSummary(try image.current()) }
        let now = MonotonicClock.nanoseconds()
        if let summary = member.summary, member.checked != Int64.min,
           Double(now &- member.checked) < options.changeCheckInterval * 1e9 {
            return summary
        }
        let summary: ImageSummary
        if let known = member.summary, options.files.stamp(member.path) == known.stamp {
            summary = known
        } else {
            do { summary = try ImageSummary(path: member.path, limits: options.limits, files: options.files) } catch let error as ImageSourceError {
                recordFailure(id, error)
                throw error
            }
        }
        record(summary, for: id, path: member.path, checked: now)
        return summary
    }
}
