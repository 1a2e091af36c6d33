import ObjectStorage
#if canImport(Glibc)
import Glibc
#endif

/// The paths a library was started on, in the order given, and how to read them (again) into it. A file is one
/// image named by its stem; a folder is walked recursively (`FolderScanner`), its images named by their path
/// below it; an `s3://bucket/prefix` is listed as a folder is walked (`ObjectTree`), at every rescan. A rescan of
/// everything and a rescan of one folder apply the same rules, so what the watcher sees one event at a time always
/// ends where a fresh start would.
package struct LibraryRoots: Sendable {
    package enum Root: Sendable, Equatable {
        case file(String)
        case folder(String)
        /// Objects in object storage below a prefix.
        case objects(S3Location)

        package var path: String {
            switch self {
            case let .file(path), let .folder(path): path
            case let .objects(location): location.description
            }
        }
    }

    package let roots: [Root]
    /// Where `.objects` roots are listed from: the executable's store, nil when it has none.
    package let objects: RemoteObjects?

    package init(_ roots: [Root], objects: RemoteObjects? = nil) {
        self.roots = roots
        self.objects = objects
    }

    /// Each path as a file or a folder, by what is there now (symbolic links followed); the first path that does
    /// not exist is the failure, with the reason.
    package static func classify(_ paths: [String], objects: RemoteObjects? = nil) -> Result<LibraryRoots, RootError> {
        var roots: [Root] = []
        for path in paths {
            if S3Location.isRemote(path) {
                guard let location = S3Location(path) else {
                    return .failure(RootError(path: path, reason: "not an object storage location: write s3://bucket or s3://bucket/prefix"))
                }
                roots.append(.objects(location))
                continue
            }
            var sb = stat()
            guard stat(path, &sb) == 0 else { return .failure(RootError(path: path, reason: String(cString: strerror(errno)))) }
            let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            roots.append((sb.st_mode & S_IFMT) == S_IFDIR ? .folder(trimmed) : .file(path))
        }
        return .success(LibraryRoots(roots, objects: objects))
    }

    package struct RootError: Swift.Error, CustomStringConvertible {
        package let path: String
        let reason: String
        package var description: String { "\(path): \(reason)" }
    }

    /// Reads every root again and makes the library match. Returns the folders entered, per root index. A root in
    /// object storage whose listing fails keeps the images it had (an outage empties no library); `failed` hears why.
    @discardableResult
    package func scanAll(into library: ImageLibrary, skip: (String) -> Bool = { _ in false },
                         failed: (Root, ObjectStorageError) -> Void = { _, _ in }) -> [Int: [FolderScanner.FolderEntry]] {
        var entered: [Int: [FolderScanner.FolderEntry]] = [:]
        for (index, root) in roots.enumerated() {
            switch root {
            case let .file(path):
                var sb = stat()
                let present = stat(path, &sb) == 0 && (sb.st_mode & S_IFMT) == S_IFREG
                library.apply(root: index, scope: .all, files: present ? [ImageNaming.stem(of: path): path] : [:])
            case let .folder(path):
                var visited: Set<FolderScanner.FolderIdentity> = []
                let (files, folders, companions) = FolderScanner.walk(path, prefix: "", visited: &visited, skip: skip)
                library.record(companions: companions)
                library.apply(root: index, scope: .all, files: files)
                entered[index] = folders
            case let .objects(location):
                do throws(ObjectStorageError) {
                    let objects = try RemoteObjects.required(objects, for: location.description)
                    let entries = try objects.client.list(bucket: location.bucket, prefix: location.listPrefix)
                    objects.record(entries, under: location)
                    library.apply(root: index, scope: .all, files: ObjectTree.files(of: entries, in: location), recheck: false)
                } catch {
                    failed(root, error)
                }
            }
        }
        return entered
    }
}
