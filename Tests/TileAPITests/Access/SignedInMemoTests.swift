import Pyramid
import TestSupport
import XCTest
@testable import TileAPI

/// The fast path's memory of its last signed-in decision is taken only while everything it rested on is as it
/// was; the sessions' count moves whenever a session ends or its groups change.
final class SignedInMemoTests: XCTestCase {
    private func image(_ id: String) throws -> PyramidImage {
        try PyramidImage(id: id, path: TestPaths.fixtures.appendingPathComponent("baseline.jpg").path, options: TileOptions())
    }

    func testHoldsOnlyForTheSameCookieImageCountsAndTime() throws {
        let (photo, other) = (try image("a/photo"), try image("a/other"))
        let cookie = Array("tileserver_session=abc; theme=dark".utf8)
        var memo = SignedInMemo()
        cookie.withUnsafeBytes { bytes in
            XCTAssertFalse(memo.holds(cookie: bytes, image: photo, policy: 1, sessions: 0, now: 10), "nothing remembered yet")
            memo.remember(cookie: bytes, image: photo, policy: 1, sessions: 0, expires: 100, user: "alice")
            XCTAssertTrue(memo.holds(cookie: bytes, image: photo, policy: 1, sessions: 0, now: 10))
            XCTAssertEqual(memo.user, "alice")
            XCTAssertFalse(memo.holds(cookie: bytes, image: other, policy: 1, sessions: 0, now: 10), "another image")
            XCTAssertFalse(memo.holds(cookie: bytes, image: photo, policy: 2, sessions: 0, now: 10), "a new policy")
            XCTAssertFalse(memo.holds(cookie: bytes, image: photo, policy: 1, sessions: 1, now: 10), "a session ended")
            XCTAssertFalse(memo.holds(cookie: bytes, image: photo, policy: 1, sessions: 0, now: 100), "expired")
            XCTAssertFalse(memo.holds(cookie: UnsafeRawBufferPointer(rebasing: bytes.dropLast()), image: photo, policy: 1, sessions: 0, now: 10))
            XCTAssertFalse(memo.holds(cookie: UnsafeRawBufferPointer(rebasing: bytes[0 ..< 0]), image: photo, policy: 1, sessions: 0, now: 10))
        }
        let changed = Array("tileserver_session=abd; theme=dark".utf8)
        changed.withUnsafeBytes { XCTAssertFalse(memo.holds(cookie: $0, image: photo, policy: 1, sessions: 0, now: 10), "another cookie") }
    }

    func testTheSessionsCountMovesWhenASessionEndsOrItsGroupsChange() throws {
        let store = SessionStore(lifetime: 60)
        var users = UserTable()
        users.set("alice", hash: "$argon2id$one", groups: ["staff"])
        users.set("bob", hash: "$argon2id$two", groups: [])
        let alice = store.open(user: "alice", hash: "$argon2id$one", groups: ["staff"], now: 0)
        let bob = store.open(user: "bob", hash: "$argon2id$two", now: 0)
        let start = store.changeCount
        _ = store.session(alice, now: 1)
        store.retain(users)
        XCTAssertEqual(store.changeCount, start, "a look or an unchanged users file changes nothing")
        users.set("alice", hash: "$argon2id$one", groups: [])
        store.retain(users)
        XCTAssertEqual(store.changeCount, start + 1, "alice's groups changed")
        XCTAssertEqual(store.session(alice, now: 1)?.groups, [])
        store.close(bob)
        XCTAssertEqual(store.changeCount, start + 2, "bob signed out")
        XCTAssertNil(store.session(alice, now: 61))
        XCTAssertEqual(store.changeCount, start + 3, "alice's session expired")
    }
}
