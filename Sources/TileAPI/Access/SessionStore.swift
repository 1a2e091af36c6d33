import POSIXSupport
import Synchronization

/// Signed-in sessions, in memory only (a restart signs everyone out): a random id (the cookie) → the user, the
/// password hash they signed in with (a changed password ends the session) and when it expires. IIIF access
/// tokens are handed out per session and end with it.
final class SessionStore: Sendable {
    struct Session: Sendable {
        let user: String
        /// The password hash signed in with; empty for a user a trusted proxy named (`groups` are then theirs).
        let hash: String
        let expires: Double
        var groups: [String] = []
    }

    /// A IIIF access token: its session, and the origin of the viewer it was posted to.
    struct Token: Sendable {
        let session: String
        let origin: String
    }

    private struct State {
        var sessions: [String: Session] = [:]
        var tokens: [String: Token] = [:]
    }

    private let state = Locked(State())
    /// Moves whenever a session ends or its groups change, so a decision remembered under an older count (the
    /// fast tile path's `SignedInMemo`) is made again.
    private let changes = Atomic<Int>(0)
    let lifetime: Double
    let capacity = 100_000

    init(lifetime: Int) { self.lifetime = Double(lifetime) }

    /// How many times a session has ended or had its groups changed.
    var changeCount: Int { changes.load(ordering: .acquiring) }

    func open(user: String, hash: String, groups: [String] = [], now: Double = MonotonicClock.seconds()) -> String {
        let id = SecureRandom.token()
        state.withLock { state in
            if state.sessions.count >= capacity { sweep(&state, now: now) }
            if state.sessions.count >= capacity, let oldest = state.sessions.min(by: { $0.value.expires < $1.value.expires }) {
                end(oldest.key, &state)
            }
            state.sessions[id] = Session(user: user, hash: hash, expires: now + lifetime, groups: groups)
        }
        return id
    }

    /// The live session `id`, if it has not expired.
    func session(_ id: String, now: Double = MonotonicClock.seconds()) -> Session? {
        state.withLock { state in
            guard let session = state.sessions[id] else { return nil }
            guard session.expires > now else {
                end(id, &state)
                return nil
            }
            return session
        }
    }

    func close(_ id: String) {
        state.withLock { end(id, &$0) }
    }

    /// Ends every session of users the new `users` no longer has with the same password (removed, or password
    /// changed), and gives the others their groups as they are now.
    func retain(_ users: UserTable) {
        state.withLock { state in
            for (id, session) in state.sessions where !session.hash.isEmpty {
                guard let user = users.user(session.user), user.hash == session.hash else {
                    end(id, &state)
                    continue
                }
                if session.groups != user.groups {
                    state.sessions[id]!.groups = user.groups
                    changes.add(1, ordering: .releasing)
                }
            }
        }
    }

    /// A IIIF access token for session `id`, for a viewer at `origin` (the same one while the session lasts).
    func accessToken(for id: String, origin: String) -> String {
        state.withLock { state in
            if let existing = state.tokens.first(where: { $0.value.session == id && $0.value.origin == origin })?.key { return existing }
            let token = SecureRandom.token()
            state.tokens[token] = Token(session: id, origin: origin)
            return token
        }
    }

    /// The session an access token belongs to, if it is presented from the origin it was given to (a request
    /// without `Origin`, as same-origin GETs and non-browser clients send, is taken as it is).
    func session(forToken token: String, origin: String?) -> String? {
        state.withLock { state in
            guard let found = state.tokens[token], origin == nil || origin == found.origin else { return nil }
            return found.session
        }
    }

    private func end(_ id: String, _ state: inout State) {
        state.sessions[id] = nil
        state.tokens = state.tokens.filter { $0.value.session != id }
        changes.add(1, ordering: .releasing)
    }

    private func sweep(_ state: inout State, now: Double) {
        for (id, session) in state.sessions where session.expires <= now { end(id, &state) }
    }
}
