import Library

/// The users file (`--users`): one line per user, `name:argon2id-hash:group,group`, `#` comments. Names and
/// groups are letters, digits and `. _ - @` (`GroupName`). Written by `tileserver user` (temporary file, then
/// rename, mode 0600) and re-read by the server when it changes.
package struct UserTable: Sendable, Equatable {
    package struct User: Sendable, Equatable {
        package let name: String
        package var hash: String
        package var groups: [String]
    }

    package private(set) var users: [User] = []

    package init() {}

    package func user(_ name: String) -> User? { users.first { $0.name == name } }

    /// Adds `name` or replaces its hash and groups.
    package mutating func set(_ name: String, hash: String, groups: [String]) {
        if let i = users.firstIndex(where: { $0.name == name }) {
            users[i].hash = hash
            users[i].groups = groups
        } else {
            users.append(User(name: name, hash: hash, groups: groups))
        }
    }

    /// Removes `name`; false when there was no such user.
    package mutating func remove(_ name: String) -> Bool {
        guard let i = users.firstIndex(where: { $0.name == name }) else { return false }
        users.remove(at: i)
        return true
    }

    /// A users file's text; the first wrong line is thrown with its number.
    package static func parse(_ text: String) throws(UserFileError) -> UserTable {
        var table = UserTable()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3 else { throw UserFileError(line: index + 1, message: "expected name:hash:groups") }
            let name = String(fields[0]), hash = String(fields[1])
            let groups = fields[2].split(separator: ",").map(String.init)
            guard GroupName.isValid(name) else { throw UserFileError(line: index + 1, message: "'\(name)' is not a user name (letters, digits, . _ - @)") }
            guard hash.hasPrefix("$argon2id$"), !hash.contains(where: { $0 == " " || $0 == ":" }) else {
                throw UserFileError(line: index + 1, message: "the password of '\(name)' is not an argon2id hash")
            }
            guard groups.allSatisfy({ GroupName.isValid($0) }) else { throw UserFileError(line: index + 1, message: "a group of '\(name)' is not a group name") }
            guard table.user(name) == nil else { throw UserFileError(line: index + 1, message: "user '\(name)' appears twice") }
            table.users.append(User(name: name, hash: hash, groups: groups))
        }
        return table
    }

    package var text: String {
        "# tileserver users: name:argon2id hash:groups (managed with `tileserver user`)\n"
            + users.map { "\($0.name):\($0.hash):\($0.groups.joined(separator: ","))\n" }.joined()
    }
}

package struct UserFileError: Swift.Error, Equatable, CustomStringConvertible {
    package let line: Int
    package let message: String
    package var description: String { "line \(line): \(message)" }
}
