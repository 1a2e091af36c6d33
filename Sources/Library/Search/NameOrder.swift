/// The order of names as people expect it: folded (`TextFolding`: `Été` beside `ete`, not after `z`), and runs of
/// digits compared as numbers (`IMG_2` before `IMG_10`). Names equal but for leading zeros order by the bytes.
package enum NameOrder {
    /// Whether folded name `a` comes before folded name `b`. Reads both in place: a search table's orders make
    /// millions of these comparisons.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in precedes(x, y) } }
    }

    private static func precedes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                let (xs, xe) = run(x, from: i), (ys, ye) = run(y, from: j)
                let xn = x[xs ..< xe], yn = y[ys ..< ye]
                if xn.count != yn.count { return xn.count < yn.count }
                if !xn.elementsEqual(yn) { return xn.lexicographicallyPrecedes(yn) }
                (i, j) = (xe, ye)
            } else {
                if x[i] != y[j] { return x[i] < y[j] }
                i += 1
                j += 1
            }
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return x.lexicographicallyPrecedes(y)
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// The digits of the run at `from` without its leading zeros (`start`) up to where the run ends (`end`).
    private static func run(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> (start: Int, end: Int) {
        var end = from
        while end < bytes.count && isDigit(bytes[end]) { end += 1 }
        var start = from
        while start < end - 1 && bytes[start] == 48 { start += 1 }
        return (start, end)
    }
}
