/// Path strings taken apart at their last `/`, with no file system access (what `NSString`'s path methods did,
/// without Foundation).
public enum PathText {
    /// Everything before the last `/` (`"a/b/c"` → `"a/b"`, `"/a"` → `"/"`, `"c"` → `""`).
    public static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The value of one hexadecimal digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil: what percent-escapes are made of.
    public static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): c - 48
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): c - 87
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): c - 55
        default: nil
        }
    }

    /// Everything after the last `/` (`"a/b/c"` → `"c"`).
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
