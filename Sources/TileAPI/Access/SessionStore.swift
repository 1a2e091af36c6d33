import POSIXSupport

/// Signed-in sessions, in memory only (a restart signs everyone out): a random id (the cookie) → the user, the
/// password hash they signed in with (a changed password ends the session) and when it expires. IIIF access
/// tokens are handed out per session and end with it.
final class SessionStore: Sendable {
    struct Session: Sendable {
        let user: String
        let hash: String
        let expires: Double
    }

    private struct State {
        var sessions: [String: Session] = [:]
        /// IIIF access token → session id.
        var tokens: [String: String] = [:]
    }

    private let state = Locked(State())
    let lifetime: Double
    let capacity = 100_000

    init(lifetime: Int) { self.lifetime = Double(lifetime) }

    func open(user: String, hash: String, now: Double = MonotonicClock.seconds()) -> String {
        let id = SecureRandom.token()
        state.withLock { state in
            if state.sessions.count >= capacity { Self.sweep(&state, now: now) }
            if state.sessions.count >= capacity, let oldest = state.sessions.min(by: { $0.value.expires < $1.value.expires }) {
                state.sessions[oldest.key] = nil
            }
            state.sessions[id] = Session(user: user, hash: hash, expires: now + lifetime)
        }
        return id
    }

    /// The live session `id`, if it has not expired.
    func session(_ id: String, now: Double = MonotonicClock.seconds()) -> Session? {
        state.withLock { state in
            guard let session = state.sessions[id] else { return nil }
            guard session.expires > now else {
                Self.end(id, &state)
                return nil
            }
            return session
        }
    }

    func close(_ id: String) {
        state.withLock { Self.end(id, &$0) }
    }

    /// Ends every session of users for whom `stillValid(user, hash)` is false (removed, or password changed).
    func retain(_ stillValid: (String, String) -> Bool) {
        state.withLock { state in
            for (id, session) in state.sessions where !stillValid(session.user, session.hash) { Self.end(id, &state) }
        }
    }

    /// A IIIF access token for session `id` (the same one while the session lasts).
    func accessToken(for id: String) -> String {
        state.withLock { state in
            if let existing = state.tokens.first(where: { $0.value == id })?.key { return existing }
            let token = SecureRandom.token()
            state.tokens[token] = id
            return token
        }
    }

    /// The session an access token belongs to.
    func session(forToken token: String) -> String? {
        state.withLock { $0.tokens[token] }
    }

    private static func end(_ id: String, _ state: inout State) {
        state.sessions[id] = nil
        state.tokens = state.tokens.filter { $0.value != id }
    }

    private static func sweep(_ state: inout State, now: Double) {
        for (id, session) in state.sessions where session.expires <= now { end(id, &state) }
    }
}
