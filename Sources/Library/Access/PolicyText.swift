/// The part of TOML an access file uses, read with the line and column of every mistake: `[table."quoted key"]`
/// headers, `key = value` lines, basic and literal strings, integers, booleans, arrays of those (over several
/// lines too) and `#` comments. Anything else TOML has (inline tables, arrays of tables, dates, floats, dotted
/// keys on the left of `=`) is refused by name rather than guessed. Pure, so it is fuzzed alone.
package enum PolicyText {
    package enum Value: Equatable, Sendable {
        case string(String)
        case integer(Int)
        case boolean(Bool)
        case array([Value])

        var kind: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .boolean: "a boolean"
            case .array: "an array"
            }
        }
    }

    /// One `key = value` line under the table header above it.
    package struct Entry: Equatable, Sendable {
        package let table: [String]
        package let key: String
        package let value: Value
        package let line: Int
        package let column: Int
    }

    /// A table header, with where it is.
    package struct Table: Equatable, Sendable {
        package let path: [String]
        package let line: Int
        package let column: Int
    }

    package struct Document: Equatable, Sendable {
        package var tables: [Table] = []
        package var entries: [Entry] = []
    }

    /// Reads `text`; the first mistake is thrown with its line and column (from 1).
    package static func parse(_ text: String) throws(PolicyError) -> Document {
        var reader = Reader(Array(text.unicodeScalars))
        return try reader.document()
    }

    private struct Reader {
        let scalars: [Unicode.Scalar]
        var at = 0
        var line = 1
        var lineStart = 0
        var table: [String] = []
        var parsed = Document()
        var seenTables: Set<[String]> = []
        var seenKeys: Set<[String]> = []

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var column: Int { at - lineStart + 1 }
        var current: Unicode.Scalar? { at < scalars.count ? scalars[at] : nil }

        func fail(_ message: String) -> PolicyError { PolicyError(line: line, column: column, message: message) }

        mutating func advance() {
            if scalars[at] == "\n" {
                line += 1
                lineStart = at + 1
            }
            at += 1
        }

        mutating func skipBlanks() {
            while let c = current, c == " " || c == "\t" { advance() }
        }

        /// Blanks, comments and line ends (inside arrays).
        mutating func skipSpace() throws(PolicyError) {
            while let c = current {
                if c == " " || c == "\t" || c == "\n" || c == "\r" { advance() } else if c == "#" { try skipComment() } else { return }
            }
        }

        mutating func skipComment() throws(PolicyError) {
            while let c = current, c != "\n" {
                if c.value < 0x20 && c != "\t" && c != "\r" { throw fail("control character in a comment") }
                advance()
            }
        }

        /// After a header or a value: only blanks and a comment before the line ends.
        mutating func endOfLine() throws(PolicyError) {
            skipBlanks()
            if current == "#" { try skipComment() }
            if current == "\r" { advance() }
            guard let c = current else { return }
            guard c == "\n" else { throw fail("unexpected '\(c)' after the value: one key = value per line") }
            advance()
        }

        mutating func document() throws(PolicyError) -> Document {
            while true {
                try skipSpace()
                guard let c = current else { return parsed }
                if c == "[" { try header() } else { try keyValue() }
            }
        }

        mutating func header() throws(PolicyError) {
            let (startLine, startColumn) = (line, column)
            advance()
            if current == "[" { throw fail("arrays of tables ([[…]]) are not used in an access file") }
            var path: [String] = []
            while true {
                skipBlanks()
                path.append(try key())
                skipBlanks()
                if current == "." { advance(); continue }
                guard current == "]" else { throw fail("expected '.' or ']' in the table name") }
                advance()
                break
            }
            guard seenTables.insert(path).inserted else {
                throw PolicyError(line: startLine, column: startColumn, message: "table [\(path.joined(separator: "."))] appears twice")
            }
            table = path
            parsed.tables.append(Table(path: path, line: startLine, column: startColumn))
            try endOfLine()
        }

        mutating func keyValue() throws(PolicyError) {
            let (startLine, startColumn) = (line, column)
            let name = try key()
            skipBlanks()
            if current == "." { throw fail("dotted keys are not used in an access file: write a [table] for each folder") }
            guard current == "=" else { throw fail("expected '=' after the key '\(name)'") }
            advance()
            skipBlanks()
            let value = try self.value()
            guard seenKeys.insert(table + [name]).inserted else {
                throw PolicyError(line: startLine, column: startColumn, message: "key '\(name)' appears twice in this table")
            }
            parsed.entries.append(Entry(table: table, key: name, value: value, line: startLine, column: startColumn))
            try endOfLine()
        }

        /// A bare key (`A-Z a-z 0-9 _ -`) or a quoted one.
        mutating func key() throws(PolicyError) -> String {
            if current == "\"" { return try basicString() }
            if current == "'" { return try literalString() }
            var name = ""
            while let c = current, Self.isBare(c) {
                name.unicodeScalars.append(c)
                advance()
            }
            guard !name.isEmpty else {
                throw fail(current.map { "unexpected '\($0)': a key is a bare word or a quoted string" } ?? "a key is missing at the end")
            }
            return name
        }

        static func isBare(_ c: Unicode.Scalar) -> Bool {
            ("A" ... "Z").contains(c) || ("a" ... "z").contains(c) || ("0" ... "9").contains(c) || c == "_" || c == "-"
        }

        mutating func value(depth: Int = 0) throws(PolicyError) -> Value {
            guard let c = current else { throw fail("a value is missing at the end") }
            switch c {
            case "\"":
                if at + 2 < scalars.count, scalars[at + 1] == "\"", scalars[at + 2] == "\"" { throw fail("multi-line strings are not used in an access file") }
                return .string(try basicString())
            case "'": return .string(try literalString())
            case "[": return try array(depth: depth)
            case "{": throw fail("inline tables are not used in an access file: write a [table]")
            case "t", "f": return try boolean()
            case "+", "-", "0" ... "9": return try integer()
            default: throw fail("unexpected '\(c)': a value is a \"string\", an integer, true, false or an [array]")
            }
        }

        mutating func array(depth: Int) throws(PolicyError) -> Value {
            guard depth < 8 else { throw fail("arrays nested too deep") }
            advance()
            var items: [Value] = []
            while true {
                try skipSpace()
                if current == "]" { advance(); return .array(items) }
                items.append(try value(depth: depth + 1))
                try skipSpace()
                if current == "," { advance(); continue }
                guard current == "]" else { throw fail(current == nil ? "an array is not closed with ']'" : "expected ',' or ']' in the array") }
                advance()
                return .array(items)
            }
        }

        mutating func boolean() throws(PolicyError) -> Value {
            for (word, value) in [("true", true), ("false", false)] where matches(word) {
                for _ in word.unicodeScalars { advance() }
                return .boolean(value)
            }
            throw fail("unexpected word: a value is a \"string\", an integer, true, false or an [array]")
        }

        func matches(_ word: String) -> Bool {
            let wanted = Array(word.unicodeScalars)
            guard at + wanted.count <= scalars.count, Array(scalars[at ..< at + wanted.count]) == wanted else { return false }
            return at + wanted.count == scalars.count || !Self.isBare(scalars[at + wanted.count])
        }

        mutating func integer() throws(PolicyError) -> Value {
            let (startLine, startColumn) = (line, column)
            var text = ""
            while let c = current, Self.isBare(c) || c == "+" || c == "." || c == ":" {
                text.unicodeScalars.append(c)
                advance()
            }
            let digits = String(text.filter { $0 != "_" })
            let unsigned = digits.hasPrefix("+") || digits.hasPrefix("-") ? digits.dropFirst() : Substring(digits)
            guard !unsigned.isEmpty, unsigned.allSatisfy({ $0.isASCII && $0.isNumber }), !text.hasSuffix("_"), !text.contains("__"),
                  unsigned == "0" || !unsigned.hasPrefix("0"), let n = Int(digits)
            else {
                throw PolicyError(line: startLine, column: startColumn, message: "'\(text)' is not an integer this file understands (decimal digits only, no floats or dates)")
            }
            return .integer(n)
        }

        mutating func literalString() throws(PolicyError) -> String {
            advance()
            var text = ""
            while let c = current {
                if c == "'" { advance(); return text }
                if c == "\n" || (c.value < 0x20 && c != "\t") || c.value == 0x7F { break }
                text.unicodeScalars.append(c)
                advance()
            }
            throw fail("a string is not closed on its line")
        }

        mutating func basicString() throws(PolicyError) -> String {
            advance()
            var text = ""
            while let c = current {
                if c == "\"" { advance(); return text }
                if c == "\n" || (c.value < 0x20 && c != "\t") || c.value == 0x7F { break }
                advance()
                guard c == "\\" else { text.unicodeScalars.append(c); continue }
                guard let e = current else { break }
                advance()
                switch e {
                case "\"": text.append("\"")
                case "\\": text.append("\\")
                case "b": text.append("\u{8}")
                case "t": text.append("\t")
                case "n": text.append("\n")
                case "f": text.append("\u{C}")
                case "r": text.append("\r")
                case "u", "U":
                    let count = e == "u" ? 4 : 8
                    var hex = ""
                    for _ in 0 ..< count {
                        guard let h = current, h.properties.isASCIIHexDigit else { throw fail("\\\(e) needs \(count) hexadecimal digits") }
                        hex.unicodeScalars.append(h)
                        advance()
                    }
                    guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { throw fail("\\\(e)\(hex) is not a Unicode scalar") }
                    text.unicodeScalars.append(scalar)
                default: throw fail("unknown escape '\\\(e)' in a string")
                }
            }
            throw fail("a string is not closed on its line")
        }
    }
}

/// A mistake in an access file, where it is and what is wrong.
package struct PolicyError: Swift.Error, Equatable, Sendable, CustomStringConvertible {
    package let line: Int
    package let column: Int
    package let message: String

    package var description: String { "line \(line), column \(column): \(message)" }
}
