import Pyramid

#if canImport(Glibc)
import Glibc
#endif

/// One event loop's last signed-in decision on the fast tile path (`AccessControl.fastSignedIn`): the `Cookie`
/// field's bytes, the image, and the policy's and the sessions' counts it was made under, with the user and when
/// the session expires. A viewer asks for one image's tiles again and again with the same cookie; while nothing
/// the decision rests on has moved, it costs a comparison of bytes instead of two locked lookups and a string
/// made of the cookie. Never shared between loops.
struct SignedInMemo {
    private var cookie: [UInt8] = []
    private var image: PyramidImage?
    private var policy = -1
    private var sessions = -1
    private var expires = 0.0
    private(set) var user = ""

    /// Whether the remembered decision stands for this request.
    func holds(cookie: UnsafeRawBufferPointer, image: PyramidImage, policy: Int, sessions: Int, now: Double) -> Bool {
        guard self.image === image, self.policy == policy, self.sessions == sessions, now < expires,
              !cookie.isEmpty, self.cookie.count == cookie.count else { return false }
        return self.cookie.withUnsafeBytes { memcmp($0.baseAddress!, cookie.baseAddress!, cookie.count) == 0 }
    }

    mutating func remember(cookie: UnsafeRawBufferPointer, image: PyramidImage, policy: Int, sessions: Int, expires: Double, user: String) {
        self.cookie.removeAll(keepingCapacity: true)
        self.cookie.append(contentsOf: cookie)
        (self.image, self.policy, self.sessions, self.expires, self.user) = (image, policy, sessions, expires, user)
    }
}
