import ArgumentParser
import Library
import Logging
import POSIXSupport
import Pyramid
import TileAPI

#if canImport(Glibc)
import Glibc
#endif

/// `tileserver share PATH --library DIR --expires 7d`: a link that lets whoever has it see one folder or one image
/// until it expires; `--list` and `--revoke ID` manage the links made. PATH is resolved through the library the
/// server serves (`--library`, the paths given to `serve`) when the link is made: a path that is not served is
/// refused, and the line printed says what the link grants (its id and whether it is an image or a folder). The
/// whole library takes `--everything`.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Make a link that shows one folder or image to whoever has it, until it expires; list or revoke links.",
        discussion: "PATH is a folder or an image under a served folder, as written on disk or as the viewer's URLs name it (an image with or without its extension); it is looked up in the library --library names (the paths given to serve) and refused when it is not served. Printed: the link's id, its expiry, what it grants (image or folder, and its id), and last the link, relative to the server's address. The whole library needs --everything."
    )

    @Argument(help: "Folder or image to share.")
    var path: String?

    @Option(help: "How long the link works: a number and s, m, h, d or w (7d).")
    var expires: String = "7d"

    @Option(help: "The key file of `serve --secret-file` (made if missing).")
    var secretFile: String

    @Flag(help: "The path is an image (when its name has no extension).")
    var image = false

    @Option(name: .customLong("library"), help: "A path the server serves (as given to `serve`); repeat for each. The shared path must be in it.")
    var libraryPaths: [String] = []

    @Flag(help: "Share the whole library (every folder, hidden ones too).")
    var everything = false

    @Flag(help: "List the links made, with their state.")
    var list = false

    @Option(help: "Revoke the link with this id: it stops working within a second.")
    var revoke: String?

    func run() throws {
        try reportingFailure {
            if list { return try listLinks() }
            if let revoke {
                guard try AccountFiles.revoke(revoke, secretFile: secretFile) else { throw CommandFailure(message: "no share link \(revoke)") }
                print("share link \(revoke) revoked")
                return
            }
            guard let seconds = Self.seconds(expires) else {
                throw CommandFailure(message: "--expires must be a number and s, m, h, d or w (like 7d), not '\(expires)'")
            }
            let (id, kind) = try granted()
            let made = try AccountFiles.share(id, kind: kind, seconds: seconds, secretFile: secretFile)
            let what = kind == .image ? "image" : "folder"
            print("\(made.token.id)\t\(Self.date(made.token.expires))\t\(what)\t\(id.isEmpty ? "/" : id)\t\(made.link)")
        }
    }

    /// What the link grants: PATH looked up in the served library, or everything with `--everything`.
    private func granted() throws -> (String, ShareToken.Kind) {
        if everything {
            guard path == nil || Self.libraryPath(path!, image: false).0.isEmpty else {
                throw CommandFailure(message: "--everything shares the whole library: name no path with it")
            }
            return ("", .folder)
        }
        guard let path else { throw CommandFailure(message: "name a folder or an image to share, or use --list or --revoke ID") }
        guard !libraryPaths.isEmpty else {
            throw CommandFailure(message: "name what the server serves with --library (the paths given to serve), so the link is checked against it")
        }
        let (id, named) = Self.libraryPath(Self.relative(path, to: libraryPaths), image: image)
        guard !id.isEmpty else {
            throw CommandFailure(message: "'\(path)' is the whole library, hidden folders too: say --everything if that is meant")
        }
        let loaded: LibraryLoader.Loaded
        do { loaded = try LibraryLoader.load(libraryPaths, options: TileOptions(), logger: Logger(label: "tileserver-share")) } catch {
            throw CommandFailure(message: "cannot read the library: \(error)")
        }
        let library = loaded.library
        let isImage = library.hasImage(id) && library.image(id)?.path.isEmpty == false
        let isFolder = library.folderName(id) != nil
        if isImage && (named || !isFolder) { return (id, .image) }
        if isFolder && !named { return (id, .folder) }
        throw CommandFailure(message: "'\(path)' is not served: no \(named ? "image" : "image or folder") '\(id)' under \(libraryPaths.joined(separator: ", "))")
    }

    /// `path` relative to the served path it lies in, when it is written as a path on disk that names one.
    static func relative(_ path: String, to roots: [String]) -> String {
        guard let real = Posix.realPath(path) else { return path }
        for root in roots {
            guard let top = Posix.realPath(root) else { continue }
            if real == top { return "." }
            if real.hasPrefix(top + "/") { return String(real.dropFirst(top.count + 1)) }
        }
        return path
    }

    private func listLinks() throws {
        let now = Int(time(nil))
        for link in try AccountFiles.shares(secretFile: secretFile) {
            let state = link.revoked ? "revoked" : link.token.expires <= now ? "expired" : "active"
            let what = link.token.kind == .image ? "image" : "folder"
            print("\(link.token.id)\t\(state)\t\(Self.date(link.token.expires))\t\(what)\t\(link.token.path.isEmpty ? "/" : link.token.path)")
        }
    }

    /// `7d` as seconds.
    static func seconds(_ text: String) -> Int? {
        let units = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        guard let last = text.last, let unit = units[String(last)], let n = Int(text.dropLast()), n > 0, n <= 3650 * 86400 / unit else { return nil }
        return n * unit
    }

    /// The path as the library names it (ids keep `A–Z a–z 0–9 . _ -` in each component), and whether it is an
    /// image (named with an image extension, or `--image`).
    static func libraryPath(_ path: String, image: Bool) -> (String, Bool) {
        var parts = path.split(separator: "/").filter { $0 != "." }.map(String.init)
        var isImage = image
        if let last = parts.last, ImageNaming.isImage(last) {
            parts[parts.count - 1] = ImageNaming.stem(of: last)
            isImage = true
        }
        return (parts.map { ImageNaming.stem(of: $0 + ".x") }.joined(separator: "/"), isImage)
    }

    static func date(_ unix: Int) -> String {
        var t = time_t(unix)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
