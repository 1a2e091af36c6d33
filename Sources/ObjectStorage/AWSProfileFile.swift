/// The INI files AWS tools keep under `~/.aws`: `credentials` (sections `[name]`) and `config` (sections
/// `[default]` and `[profile name]`), `key = value` lines, `#` and `;` comments. Nested blocks (indented lines
/// below `s3 =`) are skipped: nothing read here lives in one.
struct AWSProfileFile: Sendable {
    /// Section name (the profile's, `profile ` dropped) → keys in lower case → values.
    private(set) var sections: [String: [String: String]] = [:]

    init(text: String, isConfig: Bool) {
        var current: String?
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            if raw.first == " " || raw.first == "\t" { continue }
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { current = nil; continue }
                var name = String(line.dropFirst().dropLast()).trimmingSpaces
                if isConfig, name.hasPrefix("profile ") { name = String(name.dropFirst(8)).trimmingSpaces }
                current = name
                continue
            }
            guard let section = current, let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]).trimmingSpaces.lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingSpaces
            guard !key.isEmpty else { continue }
            sections[section, default: [:]][key] = value
        }
    }

    func value(_ key: String, profile: String) -> String? {
        sections[profile]?[key].flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
