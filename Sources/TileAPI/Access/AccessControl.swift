import HTTPTransport
import Library
import Logging
import POSIXSupport
import Pyramid
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Who may see what, decided once per request before any handler (`AccessGate`): the policy (`--access`), the
/// users (`--users`) and their sessions, share links (`--secret-file`) and a trusted proxy's headers. The files
/// are re-read when they change (`reload`, once a second off the event loops); a file that no longer reads
/// leaves the previous one in force and is logged. Without an access file every image is public.
package final class AccessControl: @unchecked Sendable {
    struct Files {
        var policy = AccessPolicy.open
        var users = UserTable()
        /// Links listed and not revoked: a token whose id is not here grants nothing (fail closed: a list gone
        /// missing or unreadable ends every link).
        var activeShares: Set<String> = []
        var revokedShares: Set<String> = []
        /// The share-link key; empty without `--secret-file`. Read again when the file changes, so links signed
        /// with a replaced key stop working.
        var shareKey: [UInt8] = []
        /// `policy`'s generation, kept with it so a rule is never cached under another policy's number.
        var generation = 1
        var stamps: [String: FileStamp?] = [:]
    }

    let settings: AccessSettings
    let library: ImageLibrary
    private let files: Locked<Files>
    /// Bumped each time the policy is replaced: image rules cached under an older one are worked out again.
    private let policyGeneration = Atomic<Int>(1)
    let sessions: SessionStore
    let throttle = LoginThrottle()
    let refusals = Refusals()
    private let logger: Logger

    /// Reads the files the settings name: a mistake in one is thrown with its file, line and column.
    package init(settings: AccessSettings, library: ImageLibrary, logger: Logger) throws(AccessSetupError) {
        self.settings = settings
        self.library = library
        self.logger = logger
        sessions = SessionStore(lifetime: settings.sessionSeconds)
        var loaded = Files()
        if let path = settings.accessFile {
            loaded.policy = try Self.readPolicy(path)
            loaded.stamps[path] = FileStamp.of(path)
        }
        if let path = settings.usersFile {
            loaded.users = try Self.readUsers(path)
            loaded.stamps[path] = FileStamp.of(path)
        }
        if let path = settings.secretFile {
            loaded.shareKey = try Self.secretKey(path, create: true)
            loaded.stamps[path] = FileStamp.of(path)
            let book = ShareBook.path(forSecret: path)
            if case let .success(read) = Self.shareList(book) { (loaded.activeShares, loaded.revokedShares) = (read.active, read.revoked) }
            loaded.stamps[book] = FileStamp.of(book)
        }
        files = Locked(loaded)
    }

    /// Whether the server needs access control at all: an access file, users, a share key, a proxy or a limit
    /// on `/metrics`. Without any, no request asks anything (as before access control existed).
    package var isNeeded: Bool {
        settings.accessFile != nil || settings.usersFile != nil || settings.secretFile != nil || !settings.trustedProxies.isEmpty
            || settings.metricsFrom != nil
    }

    /// Whether any image may be refused to anyone: with no access file, nothing is asked per request.
    package var restricts: Bool { !policy.isEmpty }

    var policy: AccessPolicy { files.withLock { $0.policy } }
    /// The policy and its generation, read together.
    var current: (policy: AccessPolicy, generation: Int) { files.withLock { ($0.policy, $0.generation) } }
    var users: UserTable { files.withLock { $0.users } }

    /// What the start-up line says.
    package var summary: String {
        let (policy, users) = files.withLock { ($0.policy, $0.users) }
        guard settings.accessFile != nil else {
            return "off: every image is public (no --access file)" + (settings.usersFile != nil ? "; \(users.users.count) users can sign in" : "")
        }
        return "\(policy.rules.count) folder rule\(policy.rules.count == 1 ? "" : "s") from \(PathText.lastComponent(of: settings.accessFile!)); "
            + "\(users.users.count) user\(users.users.count == 1 ? "" : "s"); share links \(settings.secretFile == nil ? "off (no --secret-file)" : "on")"
            + (settings.trustedProxies.isEmpty ? "" : "; proxy sign-in from \(settings.trustedProxies.map(\.description).joined(separator: ","))")
    }

    // MARK: Files

    static func readPolicy(_ path: String) throws(AccessSetupError) -> AccessPolicy {
        let text: String
        do { text = String(decoding: try SmallFile.read(path), as: UTF8.self) } catch {
            throw AccessSetupError(description: "access file: \(error)")
        }
        do { return try AccessPolicy.parse(text) } catch {
            throw AccessSetupError(description: "access file \(PathText.lastComponent(of: path)): \(error)")
        }
    }

    static func readUsers(_ path: String) throws(AccessSetupError) -> UserTable {
        let bytes: [UInt8]
        do { bytes = try SmallFile.read(path) } catch {
            if error.errno == ENOENT { return UserTable() }
            throw AccessSetupError(description: "users file: \(error)")
        }
        do { return try UserTable.parse(String(decoding: bytes, as: UTF8.self)) } catch {
            throw AccessSetupError(description: "users file \(PathText.lastComponent(of: path)): \(error)")
        }
    }

    /// The list of share links at `path`; empty when it cannot be read (what `tileserver share` adds to).
    static func readShares(_ path: String) -> ShareBook {
        (try? shareList(path).get()) ?? ShareBook()
    }

    /// The list of share links at `path`, or why it cannot be read (missing or unreadable).
    static func shareList(_ path: String) -> Result<ShareBook, SyscallError> {
        do { return .success(ShareBook.parse(String(decoding: try SmallFile.read(path), as: UTF8.self))) } catch {
            return .failure(error)
        }
    }

    /// The key in `path` (64 hexadecimal digits), made (mode 0600) when the file does not exist and `create`.
    package static func secretKey(_ path: String, create: Bool) throws(AccessSetupError) -> [UInt8] {
        do {
            let text = String(decoding: try SmallFile.read(path), as: UTF8.self).filter { !$0.isWhitespace }
            guard text.utf8.count == 64, let key = Self.hex(text) else {
                throw AccessSetupError(description: "secret file \(PathText.lastComponent(of: path)) does not hold a key (64 hexadecimal digits)")
            }
            return key
        } catch let error as SyscallError where error.errno == ENOENT && create {
            guard let key = SecureRandom.bytes(32) else { throw AccessSetupError(description: "no random bytes for a secret key") }
            do { try SmallFile.write(path, Array((key.map { String($0, radix: 16).leftPadded(2) }.joined() + "\n").utf8), mode: 0o600) } catch {
                throw AccessSetupError(description: "cannot write the secret file: \(error)")
            }
            return key
        } catch let error as AccessSetupError {
            throw error
        } catch {
            throw AccessSetupError(description: "secret file: \(error)")
        }
    }

    static func hex(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            guard let d = PathText.hexDigit(c) else { return nil }
            if let h = high { out.append(h << 4 | d); high = nil } else { high = d }
        }
        return high == nil ? out : nil
    }

    /// Re-reads whichever file changed since last time; a file that no longer reads leaves the old one in force.
    package func reload() {
        var watched: [String] = []
        if let path = settings.accessFile { watched.append(path) }
        if let path = settings.usersFile { watched.append(path) }
        if let path = settings.secretFile { watched += [path, ShareBook.path(forSecret: path)] }
        for path in watched {
            let stamp = FileStamp.of(path)
            guard files.withLock({ $0.stamps[path] != .some(stamp) }) else { continue }
            files.withLock { $0.stamps[path] = stamp }
            do {
                if path == settings.accessFile {
                    let policy = try Self.readPolicy(path)
                    files.withLock { files in
                        files.policy = policy
                        files.generation += 1
                        policyGeneration.store(files.generation, ordering: .releasing)
                    }
                    logger.notice("access file re-read: \(policy.rules.count) folder rules")
                } else if path == settings.usersFile {
                    let users = try Self.readUsers(path)
                    files.withLock { $0.users = users }
                    sessions.retain(users)
                    logger.notice("users file re-read: \(users.users.count) users")
                } else if path == settings.secretFile {
                    do {
                        let key = try Self.secretKey(path, create: false)
                        files.withLock { $0.shareKey = key }
                        logger.notice("share-link key re-read: links signed with the previous key no longer work")
                    } catch {
                        files.withLock { $0.shareKey = [] }
                        logger.error("\(error.description): every share link is refused until the key can be read")
                    }
                } else {
                    switch Self.shareList(path) {
                    case let .success(book):
                        files.withLock { ($0.activeShares, $0.revokedShares) = (book.active, book.revoked) }
                    case let .failure(error):
                        files.withLock { $0.activeShares = [] }
                        logger.error("share-link list \(PathText.lastComponent(of: path)) cannot be read (\(error)): every share link is refused until it can")
                    }
                }
            } catch {
                logger.error("\(error.description); the previous one stays in force")
            }
        }
    }

    /// Re-reads the files once a second on a thread of its own.
    package func watch() {
        startDetachedThread { [self] in
            while true {
                usleep(1_000_000)
                reload()
            }
        }
    }

    // MARK: Decisions

    package var generation: Int { policyGeneration.load(ordering: .acquiring) }

    /// Whether everyone may have every tile of `image`; nil while its rule is not worked out yet.
    package func isOpen(_ image: PyramidImage) -> Bool? {
        guard restricts else { return true }
        return library.cachedRule(of: image.id, generation: generation)?.isOpen
    }

    /// Image `id`'s rule, or nil when there is no such image. On an event loop a rule not yet worked out throws
    /// `NeedsFile` (it may resolve the file's real path).
    func rule(of id: String, onLoop: Bool) throws -> FolderRule? {
        let (policy, generation) = current
        guard !policy.isEmpty else { return library.hasImage(id) ? .open : nil }
        if let cached = library.cachedRule(of: id, generation: generation) { return cached }
        if onLoop { throw NeedsFile() }
        return library.rule(of: id, in: policy, generation: generation)
    }

    /// Whether share token `token` is valid now: signed with this server's current key, not expired, and listed
    /// as made and not revoked.
    func share(_ token: String, now: Int = Int(time(nil))) -> Result<ShareToken, ShareToken.Failure> {
        let (key, active, revoked) = files.withLock { ($0.shareKey, $0.activeShares, $0.revokedShares) }
        guard let parsed = ShareToken.verify(token, key: key) else { return .failure(.invalid) }
        if parsed.expires <= now { return .failure(.expired) }
        if revoked.contains(parsed.id) { return .failure(.revoked) }
        if !active.contains(parsed.id) { return .failure(.unlisted) }
        return .success(parsed)
    }
}

/// A setting or file access control cannot start with.
package struct AccessSetupError: Swift.Error, CustomStringConvertible {
    package let description: String
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
