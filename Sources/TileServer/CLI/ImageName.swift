/// Names derived from file paths.
enum ImageName {
    /// The file name without directory and extension, restricted to `[A-Za-z0-9._-]` (others become `-`).
    static func stem(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let base = file.lastIndex(of: ".").map { String(file[..<$0]) } ?? file
        let cleaned = String(base.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "A" ... "Z", "a" ... "z", "0" ... "9", ".", "_", "-": Character(scalar)
            default: "-"
            }
        })
        return cleaned.isEmpty || cleaned.allSatisfy({ $0 == "." }) ? "image" : cleaned
    }
}
