import Logging
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// Turns command-line paths into served images with unique, URL-safe ids.
enum ImageCatalog {
    /// Files named directly, and the .jpg/.jpeg/.png files of directories (sorted, not recursive). Unreadable
    /// images are reported and skipped; none at all is an error. No path: the built-in landscape.
    static func load(_ paths: [String], options: TileOptions, logger: Logger) throws -> [PyramidImage] {
        guard !paths.isEmpty else {
            return [PyramidImage(id: "landscape", source: ProceduralPhoto(), options: options)]
        }
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

/// Finds the viewer folder: the configured one, else the `public/` bundled beside the binary or the sources.
enum PublicFolder {
    static func locate(_ configured: String?) throws -> String {
        if let configured {
            guard let path = StaticFileHandler.realPath(configured) else { throw ServerError.noImages("--public \(configured): no such directory") }
            return path
        }
        var candidates: [String] = []
        if let exe = StaticFileHandler.realPath("/proc/self/exe") {
            let dir = String(exe[..<(exe.lastIndex(of: "/") ?? exe.endIndex)])
            candidates += [dir + "/public", dir + "/../share/tileserver/public", dir + "/../../public", dir + "/../../../public"]
        }
        candidates.append("public")
        for candidate in candidates {
            if access(candidate + "/index.html", R_OK) == 0, let path = StaticFileHandler.realPath(candidate) { return path }
        }
        throw ServerError.noImages("cannot find the viewer folder (public/ with index.html); pass --public DIR")
    }
}
