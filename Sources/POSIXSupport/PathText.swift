/// Path strings taken apart at their last `/`, with no file system access (what `NSString`'s path methods did,
/// without Foundation).
package enum PathText {
    /// Everything before the last `/` (`"a/b/c"` → `"a/b"`, `"/a"` → `"/"`, `"c"` → `""`).
    package static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The value of one hexadecimal digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil: what percent-escapes are made of.
    package static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): c - 48
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): c - 87
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): c - 55
        default: nil
        }
    }

    /// `bytes` with their `%XX` escapes decoded (and `+` as a space when `plusIsSpace`, as in a query), or nil for
    /// an escape that is not two hexadecimal digits. The one decoding of URL text: the routes' path segments and
    /// query, and the ids the fast tile path looks up.
    package static func percentDecoded(_ bytes: some Collection<UInt8>, plusIsSpace: Bool = false) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let c = iterator.next() {
            if c == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexDigit), let low = iterator.next().flatMap(hexDigit) else { return nil }
                out.append(high << 4 | low)
            } else {
                out.append(plusIsSpace && c == UInt8(ascii: "+") ? UInt8(ascii: " ") : c)
            }
        }
        return out
    }

    /// Everything after the last `/` (`"a/b/c"` → `"c"`).
    package static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
