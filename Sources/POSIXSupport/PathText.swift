/// Path strings taken apart at their last `/`, with no file system access (what `NSString`'s path methods did,
/// without Foundation).
public enum PathText {
    /// Everything before the last `/` (`"a/b/c"` → `"a/b"`, `"/a"` → `"/"`, `"c"` → `""`).
    public static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Everything after the last `/` (`"a/b/c"` → `"c"`).
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
