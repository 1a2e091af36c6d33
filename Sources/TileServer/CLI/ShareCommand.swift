import ArgumentParser
import Library
import TileAPI

#if canImport(Glibc)
import Glibc
#endif

/// `tileserver share PATH --expires 7d`: a link that lets whoever has it see one folder or one image until it
/// expires; `--list` and `--revoke ID` manage the links made.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Make a link that shows one folder or image to whoever has it, until it expires; list or revoke links.",
        discussion: "PATH is a folder or an image under a served folder, as written on disk or as the viewer's URLs name it (an image with or without its extension). The last field printed is the link, relative to the server's address."
    )

    @Argument(help: "Folder or image to share.")
    var path: String?

    @Option(help: "How long the link works: a number and s, m, h, d or w (7d).")
    var expires: String = "7d"

    @Option(help: "The key file of `serve --secret-file` (made if missing).")
    var secretFile: String

    @Flag(help: "The path is an image (when its name has no extension).")
    var image = false

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
            guard let path else { throw CommandFailure(message: "name a folder or an image to share, or use --list or --revoke ID") }
            guard let seconds = Self.seconds(expires) else {
                throw CommandFailure(message: "--expires must be a number and s, m, h, d or w (like 7d), not '\(expires)'")
            }
            let (id, isImage) = Self.libraryPath(path, image: image)
            let made = try AccountFiles.share(id, seconds: seconds, secretFile: secretFile)
            print("\(made.token.id)\t\(Self.date(made.token.expires))\t\(made.link(isImage: isImage))")
        }
    }

    private func listLinks() throws {
        let now = Int(time(nil))
        for link in try AccountFiles.shares(secretFile: secretFile) {
            let state = link.revoked ? "revoked" : link.token.expires <= now ? "expired" : "active"
            print("\(link.token.id)\t\(state)\t\(Self.date(link.token.expires))\t\(link.token.path.isEmpty ? "/" : link.token.path)")
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
