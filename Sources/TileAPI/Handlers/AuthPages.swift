/// The few HTML pages of signing in: plain, script-free forms (the token page's one script excepted), every
/// text written in escaped.
enum AuthPages {
    static func page(title: String, body: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title><style>body{font:16px system-ui,sans-serif;background:#111;color:#eee;display:grid;place-items:center;min-height:90vh;margin:0}
        main{max-width:22rem;padding:1.5rem}input,button{font:inherit;display:block;width:100%;box-sizing:border-box;margin:.4rem 0 1rem;padding:.5rem}
        a{color:#9cf}.error{color:#f99}</style></head><body><main>\(body)</main></body></html>
        """
    }

    static func login(message: String? = nil, returnTo: String) -> String {
        page(title: "Sign in", body: """
        <h1>Sign in</h1>\(message.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? "")
        <form method="post" action="/auth/login"><input type="hidden" name="return" value="\(escape(returnTo))">
        <label>User name<input name="username" autocomplete="username" required autofocus></label>
        <label>Password<input name="password" type="password" autocomplete="current-password" required></label>
        <button type="submit">Sign in</button></form>
        """)
    }

    static func logout(signedIn: String?) -> String {
        page(title: "Sign out", body: signedIn.map { """
        <h1>Signed in as \(escape($0))</h1><form method="post" action="/auth/logout"><button type="submit">Sign out</button></form>
        """ } ?? "<h1>Signed out</h1><p><a href=\"/\">Back to the photos</a></p>")
    }

    /// The page the access service's window ends on: it closes itself, as IIIF Authorization Flow asks.
    static let done = page(title: "Signed in", body: "<h1>Signed in</h1><p>You can close this window.</p><script>window.close()</script>")

    /// What a share link that no longer works says.
    static func share(_ failure: ShareToken.Failure) -> String {
        let text = switch failure {
        case .expired: "This share link has expired. Ask whoever sent it for a new one."
        case .revoked, .unlisted: "This share link was withdrawn by whoever made it."
        case .invalid: "This share link is not valid here: it may be incomplete. Check that it was copied whole."
        }
        return page(title: "Share link", body: "<h1>Share link</h1><p class=\"error\">\(escape(text))</p><p><a href=\"/auth/login\">Sign in</a></p>")
    }

    /// The IIIF access-token page: posts the message to the window that framed it, only to `origin`.
    static func token(_ message: String, origin: String) -> String {
        "<!doctype html><html><body><script>window.parent.postMessage(\(message), \(FirstPicture.scriptString(origin)));</script></body></html>"
    }

    static func escape(_ text: String) -> String { FirstPicture.attribute(text) }
}
