/// An access file read: one `FolderRule` per folder path under a served root, inherited down the tree, the most
/// specific table winning whole (keys it leaves out take their defaults, not the parent's). Paths are compared
/// component by component, case-insensitively and by Unicode canonical equivalence, so no spelling of a folder
/// (`Staff`, `STAFF`, a decomposed `é`) escapes the rule written for it.
package struct AccessPolicy: Equatable, Sendable {
    /// Rules by folder path, normalised (`key(_:)`); "" is the top of every root.
    package private(set) var rules: [[String]: FolderRule] = [:]

    /// No rules: everything is public.
    package static let open = AccessPolicy()

    package init(rules: [String: FolderRule] = [:]) {
        for (path, rule) in rules { self.rules[Self.key(path)] = rule }
    }

    package var isEmpty: Bool { rules.isEmpty }

    /// A folder path as rules are kept: its components, each lower-cased, without empty and `.` components.
    package static func key(_ path: some StringProtocol) -> [String] {
        path.split(separator: "/").filter { $0 != "." }.map { String($0).lowercased() }
    }

    /// The rule of folder `path` (its own table, else its nearest ancestor's).
    package func rule(forFolder path: String) -> FolderRule {
        rule(forKey: Self.key(path))
    }

    package func rule(forKey key: [String]) -> FolderRule {
        guard !rules.isEmpty else { return .open }
        var key = key
        while true {
            if let rule = rules[key] { return rule }
            if key.isEmpty { return .open }
            key.removeLast()
        }
    }

    /// Reads an access file (`docs/security.md`): `[folder."path"]` tables with `view`, `groups` and
    /// `max_public_size`. The first mistake is thrown with its line and column.
    package static func parse(_ text: String) throws(PolicyError) -> AccessPolicy {
        let document = try PolicyText.parse(text)
        var found: [String: (FolderRule, line: Int, column: Int, hasGroups: Bool)] = [:]
        /// Where each table's `max_public_size` is written, for the mistake of giving one where no one else sees.
        var sizeAt: [String: (line: Int, column: Int)] = [:]
        for table in document.tables {
            guard table.path.count == 2, table.path[0] == "folder" else {
                throw PolicyError(line: table.line, column: table.column,
                                  message: "unknown table [\(table.path.joined(separator: "."))]: tables are [folder.\"path/under/a/root\"]")
            }
            let path = table.path[1]
            if key(path).contains("..") {
                throw PolicyError(line: table.line, column: table.column, message: "a folder path may not contain '..'")
            }
            found[path] = (FolderRule(), table.line, table.column, false)
        }
        for entry in document.entries {
            func fail(_ message: String) -> PolicyError { PolicyError(line: entry.line, column: entry.column, message: message) }
            guard entry.table.count == 2, let path = entry.table.last, let known = found[path] else {
                throw fail("'\(entry.key)' is outside any [folder.\"path\"] table")
            }
            var (rule, hasGroups) = (known.0, known.hasGroups)
            switch (entry.key, entry.value) {
            case let ("view", .string(text)):
                switch text {
                case "public": rule.view = .public
                case "restricted": rule.view = .restricted
                case "hidden": rule.view = .hidden
                default: throw fail("view is \"public\", \"restricted\" or \"hidden\", not \"\(text)\"")
                }
            case let ("groups", .array(items)):
                var names: [String] = []
                for item in items {
                    guard case let .string(name) = item, GroupName.isValid(name) || name == "*" else {
                        throw fail("groups is a list of group names (letters, digits, . _ - @) or \"*\" for any signed-in user")
                    }
                    names.append(name)
                }
                guard !names.isEmpty else { throw fail("groups is empty: name at least one group, or \"*\" for any signed-in user") }
                rule.groups = [names]
                hasGroups = true
            case let ("max_public_size", .integer(n)):
                guard n >= 1 && n <= 1_000_000 else { throw fail("max_public_size is a number of pixels from 1 to 1000000") }
                rule.maxPublicSize = n
                sizeAt[path] = (entry.line, entry.column)
            case let ("download", .boolean(allowed)):
                rule.downloads = allowed
            case let ("slide_labels", .boolean(allowed)):
                rule.slideLabels = allowed
            case ("view", _), ("groups", _), ("max_public_size", _), ("download", _), ("slide_labels", _):
                let wanted = entry.key == "view" ? "a string" : entry.key == "groups" ? "an array of strings"
                    : entry.key == "download" || entry.key == "slide_labels" ? "true or false" : "an integer"
                throw fail("\(entry.key) must be \(wanted), not \(entry.value.kind)")
            default:
                throw fail("unknown key '\(entry.key)': a folder's keys are view, groups, max_public_size, download and slide_labels")
            }
            found[path] = (rule, known.line, known.column, hasGroups)
        }
        var rules: [String: FolderRule] = [:]
        for (path, (rule, line, column, hasGroups)) in found.sorted(by: { $0.value.line < $1.value.line }) {
            var rule = rule
            if rule.view != .public && !hasGroups {
                throw PolicyError(line: line, column: column, message: "a \(rule.view == .hidden ? "hidden" : "restricted") folder needs groups = [...] (\"*\": any signed-in user)")
            }
            if rule.view != .public, rule.maxPublicSize != nil, let at = sizeAt[path] {
                let view = rule.view == .hidden ? "hidden" : "restricted"
                throw PolicyError(line: at.line, column: at.column,
                                  message: "a \(view) folder cannot have a max_public_size: no one outside its groups sees it at any size "
                                      + "(for a public folder whose full size needs sign-in, write view = \"public\" with max_public_size)")
            }
            if rule.view == .public && rule.maxPublicSize != nil && !hasGroups { rule.groups = [["*"]] }
            if rule.view == .public && rule.maxPublicSize == nil { rule.groups = [] }
            guard rules[path] == nil, !rules.keys.contains(where: { key($0) == key(path) }) else {
                throw PolicyError(line: line, column: column, message: "folder \"\(path)\" has two tables (paths are compared ignoring case)")
            }
            rules[path] = rule
        }
        return AccessPolicy(rules: rules)
    }
}

/// What a user or group name may hold: what a users file and a proxy's header can carry unambiguously.
package enum GroupName {
    package static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.unicodeScalars.allSatisfy {
            ("A" ... "Z").contains($0) || ("a" ... "z").contains($0) || ("0" ... "9").contains($0) || $0 == "." || $0 == "_" || $0 == "-" || $0 == "@"
        }
    }
}
