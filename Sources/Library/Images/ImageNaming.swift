import ImageCodecs
/// How files and folders get their ids. Pure: the same names always give the same ids, whatever order the file
/// system lists them in or which of them appeared first.
///
/// - An id is the path below the served folder without the extension, folders kept: `2024/iceland/glacier`.
/// - Each path component is lower-cased and keeps its letters and digits, in any script (NFC); every run of
///   anything else becomes one `-`, and none leads or trails: `Été à Paris (1).jpg` → `été-à-paris-1`.
/// - Files whose names clash after that (`photo.jpg` and `photo.png`): the first in the order `.jpg`, `.jpeg`,
///   `.png` (then by name) keeps the bare id; every other one gets its lower-cased extension appended
///   (`photo.png`). Whatever still clashes gets `-2`, `-3`, … in name order; folders that clash likewise.
/// - Hidden names (a leading dot: editors' and rsync's temporaries, `.DS_Store`) and files without a
///   `.jpg`, `.jpeg` or `.png` extension (downloads in progress: `.part`, `.crdownload`, `.tmp`) are not images.
/// - Ids made by earlier versions (ASCII only, case kept: `-t----Paris--1-`) are `legacyComponent`'s: addresses
///   that carry one are redirected to the id of today.
package enum ImageNaming {
    /// One path component, cleaned.
    static func component(_ raw: some StringProtocol) -> String {
        var cleaned = "", dash = false
        for character in nfc(String(raw)).lowercased() {
            if character.isLetter || character.isNumber {
                if dash && !cleaned.isEmpty { cleaned.append("-") }
                dash = false
                cleaned.append(character)
            } else {
                dash = true
            }
        }
        return cleaned.isEmpty ? "image" : cleaned
    }

    /// One path component as ids were made before they kept letters beyond ASCII: `A–Z a–z 0–9 . _ -` kept,
    /// any other character `-`.
    static func legacyComponent(_ raw: some StringProtocol) -> String {
        let cleaned = String(raw.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "A" ... "Z", "a" ... "z", "0" ... "9", ".", "_", "-": Character(scalar)
            default: "-"
            }
        })
        return cleaned.isEmpty || cleaned.allSatisfy({ $0 == "." }) ? "image" : cleaned
    }

    /// `text` in Unicode normalisation form C (a name written on macOS arrives decomposed: `e` and U+0301),
    /// so the same letters always make the same id.
    static func nfc(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        text._withNFCCodeUnits { bytes.append($0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The file name without its directory and extension, cleaned: the id of a file named on the command line.
    package static func stem(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return component(file.lastIndex(of: ".").map { file[..<$0] } ?? file[...])
    }

    /// `stem(of:)` as ids were made before (`legacyComponent`).
    static func legacyStem(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return legacyComponent(file.lastIndex(of: ".").map { file[..<$0] } ?? file[...])
    }

    /// Whether a file name is an image's by its extension (hidden names are not): one a source reads, or one
    /// listed as "cannot be shown: format not supported" (GIF, JPEG XL, camera raw…), never silently skipped.
    package static func isImage(_ name: String) -> Bool {
        guard !name.hasPrefix("."), let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return SourceFormat.isImageExtension(name[name.index(after: dot)...])
    }

    /// The id (one component) of each image file of one folder, by file name.
    static func ids(forFiles names: [String]) -> [String: String] {
        let rank = ["jpg": 0, "jpeg": 1, "png": 2]
        func ext(_ name: String) -> String { name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? "" }
        let ordered = names.map { (name: $0, rank: rank[ext($0)] ?? 3) }.sorted { a, b in
            a.rank != b.rank ? a.rank < b.rank : a.name < b.name
        }.map(\.name)
        var taken: Set<String> = []
        var out: [String: String] = [:]
        var second: [String] = []
        for name in ordered {
            let id = stem(of: name)
            if taken.insert(id).inserted { out[name] = id } else { second.append(name) }
        }
        for name in second.sorted(by: { $0 < $1 }) {
            out[name] = unique(stem(of: name) + "." + ext(name), &taken)
        }
        return out
    }

    /// The id component of each sub-folder of one folder, by folder name.
    static func ids(forFolders names: [String]) -> [String: String] {
        var taken: Set<String> = []
        var out: [String: String] = [:]
        for name in names.sorted(by: { $0 < $1 }) {
            out[name] = unique(component(name), &taken)
        }
        return out
    }

    /// `id`, or `id-2`, `id-3`, … when taken; marks the result taken.
    static func unique(_ id: String, _ taken: inout Set<String>) -> String {
        let chosen = unique(id) { taken.contains($0) }
        taken.insert(chosen)
        return chosen
    }

    /// The first of `id`, `id-2`, `id-3`, … that `isTaken` does not claim: the clash rule, for names of one
    /// folder and for ids across the whole library alike.
    static func unique(_ id: String, isTaken: (String) -> Bool) -> String {
        var candidate = id, n = 2
        while isTaken(candidate) {
            candidate = "\(id)-\(n)"
            n += 1
        }
        return candidate
    }
}
