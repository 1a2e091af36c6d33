import Logging
import ObjectStorage
import POSIXSupport
import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// Turns command-line paths into the live image library: files by their stem, folders recursively by path
/// (`ImageNaming`). Folder contents are not opened at start (a tree of 100,000 scans starts at once); files named
/// directly are, so a broken one is reported now. No path, or only folders without any image file (a container's
/// empty `/images` volume): the built-in landscape, until images appear.
package enum LibraryLoader {
    package struct Loaded {
        package let library: ImageLibrary
        package let roots: LibraryRoots
        /// The folders the first scan entered, by root index: what the watcher starts watching.
        package let folders: [Int: [FolderScanner.FolderEntry]]
    }

    /// `objects`: where `s3://` paths are listed from (their files are read through `options.files`); `titlesAsNames`:
    /// photos are shown and sorted by their own titles (`--names title`).
    package static func load(_ paths: [String], options: TileOptions, objects: RemoteObjects? = nil, titlesAsNames: Bool = true,
                             logger: Logger) throws -> Loaded {
        let landscape = PyramidImage(id: "landscape", source: ProceduralPhoto(), options: options)
        guard !paths.isEmpty else {
            return Loaded(library: ImageLibrary(options: options, fallback: landscape, titlesAsNames: titlesAsNames), roots: LibraryRoots([]), folders: [:])
        }
        let roots: LibraryRoots
        switch LibraryRoots.classify(paths, objects: objects) {
        case let .success(classified): roots = classified
        case let .failure(error): throw NoImages(description: error.description)
        }
        let onlyFolders = roots.roots.allSatisfy { if case .file = $0 { false } else { true } }
        let library = ImageLibrary(options: options, fallback: onlyFolders ? landscape : nil, titlesAsNames: titlesAsNames)
        // Object storage that refuses us, or a bucket that is not there, is a mistake to say now; one that does
        // not answer may come back, and its images are listed when it does.
        var refused: ObjectStorageError?
        let folders = roots.scanAll(into: library, failed: { root, error in
            if error.isTransient {
                logger.warning("\(root.path): \(error); listed again every --rescan-interval")
            } else if refused == nil {
                refused = error
            }
        })
        if let refused { throw NoImages(description: refused.description) }
        System.releaseFreeMemory()
        var readable = 0
        for case let .file(path) in roots.roots {
            guard let image = library.image(ImageNaming.stem(of: path)), image.path == path else { continue }
            do {
                _ = try image.current()
                readable += 1
            } catch {
                logger.error("\(error)")
            }
        }
        if !onlyFolders, readable == 0, roots.roots.allSatisfy({ if case .file = $0 { true } else { false } }) {
            throw NoImages(description: "no readable JPEG or PNG images in \(paths.joined(separator: ", "))")
        }
        if onlyFolders, library.image(landscape.id) === landscape {
            logger.notice("no image files in \(paths.joined(separator: ", ")); serving the built-in landscape until there are")
        }
        return Loaded(library: library, roots: roots, folders: folders)
    }
}

/// Why the server has nothing to serve.
struct NoImages: Swift.Error, CustomStringConvertible {
    let description: String
}
