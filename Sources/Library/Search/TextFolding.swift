/// Text as search and the name order compare it: NFC, lower case, and each Latin letter with marks as its base
/// letter (`é` → `e`, `ł` → `l`, `ø` → `o`), the letters that stand for two written out (`ß` → `ss`, `æ` → `ae`,
/// `œ` → `oe`, `þ` → `th`). Worked out from each letter's Unicode name (`LATIN SMALL LETTER E WITH ACUTE`), which
/// the standard library carries, so every Latin letter with marks folds without a table of our own; marks left on
/// their own are dropped; other scripts are only lower-cased. So `zoe` finds `Zoë`, `lodz` `Łódź` and `strasse`
/// `Straße`.
package enum TextFolding {
    package static func fold(_ text: String) -> String {
        let lower = ImageNaming.nfc(text).lowercased()
        guard lower.utf8.contains(where: { $0 >= 0x80 }) else { return lower }
        var out = String.UnicodeScalarView()
        for scalar in lower.unicodeScalars {
            if scalar.isASCII { out.append(scalar); continue }
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            if let base = latinBase(scalar) { out.append(contentsOf: base.unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    /// What a lower-case Latin letter folds to, by its name: the one or two letters before ` WITH`, or the
    /// spelled-out letters of those that stand for two; nil for anything else.
    static func latinBase(_ scalar: Unicode.Scalar) -> String? {
        guard let name = scalar.properties.name else { return nil }
        let prefixes = ["LATIN SMALL LETTER ", "LATIN SMALL LIGATURE "]
        guard let prefix = prefixes.first(where: { name.hasPrefix($0) }) else { return nil }
        var letters = name.dropFirst(prefix.count)
        if let with = letters.firstRange(of: " WITH ") { letters = letters[..<with.lowerBound] }
        switch letters {
        case "SHARP S": return "ss"
        case "THORN": return "th"
        case "ETH": return "d"
        case "DOTLESS I": return "i"
        case "LONG S": return "s"
        default:
            guard (1 ... 2).contains(letters.count), letters.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return nil }
            return letters.lowercased()
        }
    }
}
