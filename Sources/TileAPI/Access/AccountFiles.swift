import Library
import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// What `tileserver user` and `tileserver share` do to the users file and the share list: read, change, write
/// whole (temporary name, then rename, mode 0600). A running server sees the change within a second.
package enum AccountFiles {
    /// Adds user `name` (or sets a new password and groups); a changed password ends the user's sessions.
    package static func addUser(_ name: String, password: String, groups: [String], file: String) throws(AccessSetupError) {
        guard GroupName.isValid(name) else { throw AccessSetupError(description: "'\(name)' is not a user name: letters, digits and . _ - @, up to 64") }
        for group in groups where !GroupName.isValid(group) {
            throw AccessSetupError(description: "'\(group)' is not a group name: letters, digits and . _ - @, up to 64")
        }
        guard !password.isEmpty else { throw AccessSetupError(description: "the password is empty: give it on standard input") }
        guard let hash = PasswordHash.make(password) else { throw AccessSetupError(description: "the password could not be hashed (out of memory?)") }
        var table = try AccessControl.readUsers(file)
        table.set(name, hash: hash, groups: groups)
        try write(file, table.text)
    }

    /// Removes user `name`; false when there was none.
    package static func removeUser(_ name: String, file: String) throws(AccessSetupError) -> Bool {
        var table = try AccessControl.readUsers(file)
        guard table.remove(name) else { return false }
        try write(file, table.text)
        return true
    }

    /// Each user's name and groups.
    package static func users(file: String) throws(AccessSetupError) -> [(name: String, groups: [String])] {
        try AccessControl.readUsers(file).users.map { ($0.name, $0.groups) }
    }

    /// A new share link for `path` (an image id or a folder path, as the viewer's URLs name them) lasting
    /// `seconds`: its token, recorded in the list beside the key (made if missing).
    package static func share(_ path: String, kind: ShareToken.Kind, seconds: Int, secretFile: String) throws(AccessSetupError) -> ShareToken.Made {
        let key = try AccessControl.secretKey(secretFile, create: true)
        let now = Int(time(nil))
        // Hexadecimal: an id never starts with '-', so `share --revoke ID` cannot read it as an option.
        let id = (SecureRandom.bytes(8) ?? []).map { String($0, radix: 16).leftPadded(2) }.joined()
        let token = ShareToken(id: id, expires: now + seconds, kind: kind, path: path)
        let listFile = ShareBook.path(forSecret: secretFile)
        var book = AccessControl.readShares(listFile)
        book.add(token, created: now)
        try write(listFile, book.text)
        return ShareToken.Made(token: token, text: token.signed(with: key))
    }

    /// The links made, newest last.
    package static func shares(secretFile: String) throws(AccessSetupError) -> [ShareBook.Link] {
        _ = try AccessControl.secretKey(secretFile, create: false)
        return AccessControl.readShares(ShareBook.path(forSecret: secretFile)).links
    }

    /// Revokes link `id`; false when there is no such link.
    package static func revoke(_ id: String, secretFile: String) throws(AccessSetupError) -> Bool {
        let listFile = ShareBook.path(forSecret: secretFile)
        var book = AccessControl.readShares(listFile)
        guard book.revoke(id) else { return false }
        try write(listFile, book.text)
        return true
    }

    /// The token of a listed link, signed again (tokens are not stored, only what they say).
    package static func text(of token: ShareToken, secretFile: String) throws(AccessSetupError) -> String {
        token.signed(with: try AccessControl.secretKey(secretFile, create: false))
    }

    private static func write(_ path: String, _ text: String) throws(AccessSetupError) {
        do { try SmallFile.write(path, Array(text.utf8), mode: 0o600) } catch {
            throw AccessSetupError(description: "cannot write \(path): \(error)")
        }
    }
}

extension ShareToken {
    /// A token just made and its text.
    package struct Made: Sendable {
        package let token: ShareToken
        package let text: String

        /// The link that opens it, relative to the server: `/?image=…&share=…` for an image, else `/?folder=…`.
        package var link: String {
            "/?\(token.kind == .image ? "image" : "folder")=\(URLPath.escape(token.path))&share=\(text)"
        }
    }
}
