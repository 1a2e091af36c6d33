import ArgumentParser
import TileAPI

#if canImport(Glibc)
import Glibc
#endif

/// `tileserver user add|remove|list`: the users file that `serve --users` reads. Passwords come on standard
/// input, never as an argument (where `ps` and shell history would show them).
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage who can sign in: the users file of `serve --users` (passwords hashed with argon2id).",
        subcommands: [Add.self, Remove.self, List.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user, or set a user's password and groups; the password is read from standard input (its first line)."
        )

        @Argument(help: "User name: letters, digits and . _ - @.")
        var name: String

        @Option(name: .customLong("group"), help: "A group the user is in (repeat for more).")
        var groups: [String] = []

        @Option(help: "The users file (made if missing).")
        var users: String

        func run() throws {
            try reportingFailure {
                if isatty(0) != 0 { printError("password for \(name) (the first line of standard input):") }
                guard let line = readLine(strippingNewline: true) else { throw CommandFailure(message: "no password on standard input") }
                try AccountFiles.addUser(name, password: line, groups: groups, file: users)
                print("user \(name) saved\(groups.isEmpty ? "" : " (groups: \(groups.joined(separator: ", ")))")")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user; their sessions end.")

        @Argument(help: "User name.")
        var name: String

        @Option(help: "The users file.")
        var users: String

        func run() throws {
            try reportingFailure {
                guard try AccountFiles.removeUser(name, file: users) else { throw CommandFailure(message: "no user \(name) in \(users)") }
                print("user \(name) removed")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users and their groups.")

        @Option(help: "The users file.")
        var users: String

        func run() throws {
            try reportingFailure {
                for user in try AccountFiles.users(file: users) {
                    print(user.groups.isEmpty ? user.name : "\(user.name)\t\(user.groups.joined(separator: ","))")
                }
            }
        }
    }
}
