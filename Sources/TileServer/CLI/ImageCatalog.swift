import Logging
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// Turns command-line paths into served images with unique, URL-safe ids.
enum ImageCatalog {
    /// Files named directly, and the .jpg/.jpeg/.png files of directories (sorted, not recursive). Unreadable
    /// images are reported and skipped; none readable is an error. No path, or only folders without any image file
    /// (a container's empty `/images` volume): the built-in landscape.
    static func load(_ paths: [String], options: TileOptions, logger: Logger) throws -> [PyramidImage] {
        let landscape = { [PyramidImage(id: "landscape", source: ProceduralPhoto(), options: options)] }
        guard !paths.isEmpty else { return landscape() }
        var files: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { throw ServerError.noImages("\(path): \(String(cString: strerror(errno)))") }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                files += try listing(path).filter { name in name.contains(".") && ImageFormat(fileExtension: name.split(separator: ".").last ?? "") != nil }
                    .sorted().map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        if files.isEmpty {
            logger.notice("no .jpg, .jpeg or .png files in \(paths.joined(separator: ", ")); serving the built-in landscape")
            return landscape()
        }
        var images: [PyramidImage] = []
        var used: Set<String> = []
        for file in files {
            let id = uniqueID(ImageName.stem(of: file), used: &used)
            do {
                images.append(try PyramidImage(id: id, path: file, options: options))
            } catch {
                used.remove(id)
                logger.error("skipping \(error)")
            }
        }
        guard !images.isEmpty else { throw ServerError.noImages("no readable JPEG or PNG images in \(paths.joined(separator: ", "))") }
        return images
    }

    /// `stem`, or `stem-2`, `stem-3`, … when taken.
    static func uniqueID(_ stem: String, used: inout Set<String>) -> String {
        var id = stem
        var n = 2
        while used.contains(id) {
            id = "\(stem)-\(n)"
            n += 1
        }
        used.insert(id)
        return id
    }

    private static func listing(_ directory: String) throws -> [String] {
        guard let dir = opendir(directory) else { throw ServerError.noImages("\(directory): \(String(cString: strerror(errno)))") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }
}

/// The viewer: the `--public` folder when one is configured (for working on the viewer), else the copy compiled in.
enum PublicFolder {
    static func locate(_ configured: String?) throws -> ViewerFiles {
        guard let configured else { return .embedded }
        guard let path = StaticFileHandler.realPath(configured), access(path + "/index.html", R_OK) == 0 else {
            throw ServerError.noImages("--public \(configured): no such directory with an index.html")
        }
        return .folder(path)
    }
}
