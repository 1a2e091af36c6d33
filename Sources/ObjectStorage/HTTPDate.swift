/// The two date forms object storage sends: ISO 8601 in listings ("2026-11-26T16:07:08.000Z") and IMF-fixdate in
/// headers ("Thu, 26 Nov 2026 16:07:08 GMT"), as nanoseconds since 1970 (UTC).
enum HTTPDate {
    static func nanoseconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start >= 0, start + count <= b.count else { return nil }
            var n = 0
            for c in b[start ..< start + count] {
                guard c >= 48, c <= 57 else { return nil }
                n = n * 10 + Int(c - 48)
            }
            return n
        }
        var parts: (Int, Int, Int, Int, Int, Int)?
        if b.count >= 19, b[4] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
           let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2), let h = number(11, 2), let mi = number(14, 2), let s = number(17, 2) {
            parts = (y, mo, d, h, mi, s)
        } else if b.count >= 29, b[3] == UInt8(ascii: ","), let d = number(5, 2), let y = number(12, 4),
                  let h = number(17, 2), let mi = number(20, 2), let s = number(23, 2) {
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            let name = String(decoding: b[8 ..< 11], as: UTF8.self)
            if let mo = months.firstIndex(of: name) { parts = (y, mo + 1, d, h, mi, s) }
        }
        // Years nanoseconds since 1970 can hold (an Int64 ends in 2262); the fuzzer found year 3026 overflowing.
        guard let (y, mo, d, h, mi, s) = parts, (1900...2200).contains(y), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        // Days from 1970-01-01 (the civil-from-days inverse, proleptic Gregorian).
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return (Int64(days) * 86_400 + Int64(h * 3600 + mi * 60 + s)) * 1_000_000_000
    }
}
