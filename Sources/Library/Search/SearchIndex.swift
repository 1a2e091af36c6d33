import ImageCodecs
import POSIXSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The library's search index: a `SearchRecord` per image file, by path, read from the files' headers by a
/// thread of its own at low priority, never by a request. It looks again at every file after the library
/// changes (a file added, removed or replaced, as the watcher reports it) and every `interval` seconds (for
/// files rewritten in place, whose tags an editor changed); a file whose size and time are unchanged is not read.
/// Until its first pass ends, searches answer from what is indexed and say how far it is (`status`).
package final class SearchIndex: Sendable {
    private let records = Locked<[String: SearchRecord]>([:])
    private let counts = Locked<(indexed: Int, total: Int, passes: Int)>((0, 0, 0))
    private let nudged = Atomic<Int>(0)
    /// Bumped whenever a record is added, changed or dropped.
    private let version = Atomic<Int>(0)
    /// What searches read, made after each pass that changed something (`table(_:)`).
    private let current = Locked<SearchTable?>(nil)

    /// Heads of masters in object storage fetched at once while indexing (`ImageFiles.prefetchHeads`): one at a
    /// time, a master a round trip, a thousand masters 20 ms away would take 20 s; and an open that finds its head
    /// known fetches its directories in one round (`TIFFSource.prefetchOpening`).
    static let headsAtOnce = 16

    /// Whether a photo's own title is the name it is shown and sorted by (`--names title`), else its file name.
    package let titlesAsNames: Bool

    package init(titlesAsNames: Bool = true) {
        self.titlesAsNames = titlesAsNames
    }

    /// What one pixel of file `path` measures, in millimetres, as its EXIF says (as last indexed).
    func millimetresPerPixel(ofPath path: String) -> Double? {
        records.withLock { $0[path]?.millimetresPerPixel }
    }

    /// The title image file `path` is shown by, where titles are names and it has one (as last indexed).
    func title(ofPath path: String) -> String? {
        titlesAsNames ? records.withLock { $0[path]?.title } : nil
    }

    /// The records of `paths`, in order (nil where not indexed yet), under one lock.
    func records(_ paths: [String]) -> [SearchRecord?] { records.withLock { table in paths.map { table[$0] } } }

    /// Files indexed and files in the library at the last look; `complete` once a whole pass has ended.
    package var status: (indexed: Int, total: Int, complete: Bool) {
        counts.withLock { ($0.indexed, $0.total, $0.passes > 0) }
    }

    /// Asks the indexing thread to look at the files again now (the library changed).
    func nudge() { nudged.add(1, ordering: .releasing) }

    /// Indexes `library` on a thread of its own: a pass now, then again after each change and every `interval`.
    package func start(_ library: ImageLibrary, interval: Double = 10) {
        startDetachedThread { [self] in
            lowerCurrentThreadPriority()
            while true {
                let seen = nudged.load(ordering: .acquiring), generation = library.generation
                pass(library)
                var waited = 0.0
                while waited < interval, nudged.load(ordering: .acquiring) == seen, library.generation == generation {
                    usleep(250_000)
                    waited += 0.25
                }
            }
        }
    }

    /// One look at every image file of `library`: new and changed files read, records of files gone dropped.
    package func pass(_ library: ImageLibrary) {
        let members = library.members()
        let files = library.options.files
        counts.withLock { $0.total = members.count; $0.indexed = 0 }
        var kept = Set<String>(minimumCapacity: members.count)
        var stale: [(member: ImageLibrary.Entry, stamp: FileStamp, sidecar: String?, sidecarStamp: FileStamp?)] = []
        for member in members {
            kept.insert(member.path)
            guard let stamp = files.stamp(member.path) else { continue }
            // A sidecar's edits count as the photo's: a change to either is read again.
            let sidecar = library.companions(ofPath: member.path)?.sidecar
            let sidecarStamp = sidecar.flatMap { files.stamp($0) }
            if let known = records.withLock({ $0[member.path] }), known.stamp == stamp, known.sidecarStamp == sidecarStamp { continue }
            stale.append((member, stamp, sidecar, sidecarStamp))
        }
        let fresh = members.count - stale.count
        counts.withLock { $0.indexed = fresh }
        for (n, item) in stale.enumerated() {
            if n % 256 == 255 { counts.withLock { $0.indexed = fresh + n } }
            // Masters in object storage: the heads of the next ones on their way together, not one round trip each.
            if n % Self.headsAtOnce == 0 { files.prefetchHeads(stale[n ..< min(stale.count, n + Self.headsAtOnce)].map(\.member.path)) }
            let embedded = (try? MetadataReader.read(path: item.member.path, files: files)) ?? PhotoMetadata()
            let metadata = item.sidecar.flatMap { try? MetadataReader.readSidecar(path: $0, files: files) }
                .map { MetadataReader.overriding(embedded, with: $0) } ?? embedded
            var record = SearchRecord(name: ImageLibrary.displayName(ofFile: item.member.path, id: item.member.id), metadata: metadata,
                                      stamp: item.stamp, titlesAsNames: titlesAsNames)
            record.sidecarStamp = item.sidecarStamp
            records.withLock { $0[item.member.path] = record }
            version.add(1, ordering: .releasing)
        }
        records.withLock { table in
            if table.count > kept.count {
                table = table.filter { kept.contains($0.key) }
                version.add(1, ordering: .releasing)
            }
        }
        counts.withLock { $0.indexed = members.count; $0.passes += 1 }
        _ = table(library)
    }

    /// The table for the library as it is and the records as they are: the one made last while neither has
    /// changed, else made now (every image sorted in six orders; the indexing thread makes it after each pass,
    /// so a search seldom does).
    func table(_ library: ImageLibrary) -> SearchTable {
        let generation = library.generation, version = version.load(ordering: .acquiring)
        if let table = current.withLock({ $0 }), table.generation == generation, table.version == version { return table }
        let members = library.members()
        let table = SearchTable(members: members, records: records(members.map(\.path)), generation: generation, version: version)
        current.withLock { if ($0?.version ?? -1) <= version { $0 = table } }
        return table
    }
}
