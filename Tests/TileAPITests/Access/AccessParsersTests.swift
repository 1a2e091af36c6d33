@testable import TileAPI
import TestSupport
import XCTest

final class AccessParsersTests: XCTestCase {
    let key = Array(repeating: UInt8(42), count: 32)

    func testShareTokensVerifyOnlyAsSigned() {
        let token = ShareToken(id: "abc", expires: 2_000_000_000, kind: .folder, path: "2024/île")
        let text = token.signed(with: key)
        XCTAssertEqual(ShareToken.verify(text, key: key), token)
        XCTAssertNil(ShareToken.verify(text, key: Array(repeating: 1, count: 32)), "another key")
        XCTAssertNil(ShareToken.verify(String(text.dropLast()), key: key), "truncated")
        let parts = text.split(separator: ".").map(String.init)
        let forgedPath = [parts[0], parts[1], parts[2], "fZHJhZnRz", parts[4]].joined(separator: ".")
        XCTAssertNil(ShareToken.verify(forgedPath, key: key), "another path under the same MAC")
        let later = [parts[0], parts[1], "2100000000", parts[3], parts[4]].joined(separator: ".")
        XCTAssertNil(ShareToken.verify(later, key: key), "a later expiry under the same MAC")
        XCTAssertNil(ShareToken.verify("s1....", key: key))
        XCTAssertNil(ShareToken.verify(String(repeating: "a", count: 5000), key: key))
        XCTAssertTrue(token.grants(image: "2024/île/x"))
        XCTAssertFalse(token.grants(image: "2024/île"), "a folder's link grants what is in it, not an image of its name")
        let forgedKind = [parts[0], parts[1], parts[2], "i" + parts[3].dropFirst(), parts[4]].joined(separator: ".")
        XCTAssertNil(ShareToken.verify(forgedKind, key: key), "another kind under the same MAC")
        let first = "s1.abc.2000000000." + parts[3].dropFirst()
        XCTAssertNil(ShareToken.verify(first + "." + Base64.encode(HMACSHA256.mac(Array(first.utf8), key: key), .url), key: key),
                     "a token of the first form, which had no kind, verifies no more")
        XCTAssertFalse(token.grants(image: "2024/île-2/x"), "a sibling whose name starts the same")
        XCTAssertFalse(token.grants(image: "2024/x"))
        XCTAssertTrue(token.reaches(folder: "2024"), "its parents may be listed, to reach it")
        XCTAssertEqual(ShareToken.logged(Substring(text)), "s2.abc.…")
        XCTAssertEqual(ShareToken.logged("garbage"), "…")
    }

    /// Issue 58 item 7: a link made for image `pub/a` opened the hidden folder `pub/a/`.
    func testAnImagesLinkGrantsThatImageAlone() {
        let image = ShareToken(id: "i", expires: 2_000_000_000, kind: .image, path: "pub/a")
        XCTAssertTrue(image.grants(image: "pub/a"))
        XCTAssertFalse(image.grants(image: "pub/a/secret"))
        XCTAssertFalse(image.grants(image: "pub/b"))
        XCTAssertTrue(image.reaches(folder: "pub"))
        XCTAssertTrue(image.reaches(folder: ""))
        XCTAssertFalse(image.reaches(folder: "pub/a"), "a folder that shares the image's id is not reached")
        let everything = ShareToken(id: "e", expires: 2_000_000_000, kind: .folder, path: "")
        XCTAssertTrue(everything.grants(image: "drafts/x"))
        XCTAssertEqual(ShareToken.verify(image.signed(with: key), key: key), image)
    }

    func testShareBookRoundTripsAndSkipsDamage() {
        var book = ShareBook()
        book.add(ShareToken(id: "a", expires: 10, kind: .image, path: "x y/z"), created: 5)
        book.add(ShareToken(id: "b", expires: 20, kind: .folder, path: ""), created: 6)
        XCTAssertTrue(book.revoke("a"))
        XCTAssertFalse(book.revoke("nope"))
        let read = ShareBook.parse(book.text + "garbage line\n\n1 2 3\n")
        XCTAssertEqual(read, book)
        XCTAssertEqual(read.revoked, ["a"])
        XCTAssertEqual(read.active, ["b"])
    }

    func testCookiesAndForms() {
        XCTAssertEqual(FormFields.cookie("b", in: [" a=1; tileserver_session=\"xyz\" ;noequals; =empty; b = 2 "]), "2")
        XCTAssertNil(FormFields.cookie("noequals", in: ["noequals; a=1"]))
        XCTAssertEqual(FormFields.cookie("tileserver_session", in: ["x=1", "tileserver_session=\"xyz\""]), "xyz")
        // Read in place, as the fast path reads one field.
        let expected: [(String, String?)] = [("a=1; tileserver_session=abc", "abc"), (" tileserver_session = abc ;x=2", "abc"),
                                             ("tileserver_session=\"abc\"", "abc"), ("tileserver_sessionx=1", nil), ("x=tileserver_session=1", nil),
                                             ("", nil), (";;;", nil), ("tileserver_session=", ""), ("tileserver_session=a; tileserver_session=b", "a")]
        for (header, value) in expected {
            XCTAssertEqual(Array(header.utf8).withUnsafeBytes { FormFields.cookie("tileserver_session", in: $0) }, value, header)
        }
        XCTAssertEqual(FormFields.form(Array("username=al%C3%A9+x&password=a%26b&username=second".utf8)),
                       ["username": "alé x", "password": "a&b"])
        XCTAssertNil(FormFields.form(Array("a=%G1".utf8)))
        XCTAssertNil(FormFields.form(Array("a=%".utf8)))
        XCTAssertNil(FormFields.form(Array("a=%FF".utf8)), "not UTF-8")
    }

    func testUsersFile() throws {
        var table = UserTable()
        table.set("alice", hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA", groups: ["staff", "x"])
        table.set("bob", hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA", groups: [])
        XCTAssertEqual(try UserTable.parse(table.text), table)
        for bad in ["alice:plain:staff\n", "al ice:$argon2id$x:\n", "a:$argon2id$x:st aff\n", "a:$argon2id$x\n", "a:$argon2id$x:\na:$argon2id$y:\n"] {
            XCTAssertThrowsError(try UserTable.parse(bad), bad)
        }
    }

    func testPasswordHashesAreArgon2idAndSalted() throws {
        let one = try XCTUnwrap(PasswordHash.make("correct horse"))
        let two = try XCTUnwrap(PasswordHash.make("correct horse"))
        XCTAssertTrue(one.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        XCTAssertNotEqual(one, two, "salted")
        XCTAssertTrue(PasswordHash.verify("correct horse", against: one))
        XCTAssertFalse(PasswordHash.verify("correct horsE", against: one))
        XCTAssertFalse(PasswordHash.verify("", against: "$argon2id$garbage"))
        XCTAssertFalse(PasswordHash.verify("x", against: "$2y$10$bcrypt"))
    }

    func testAddressRanges() throws {
        let ranges = try AddressRange.list("10.0.0.0/8, 127.0.0.1,fd00::/8").get()
        XCTAssertTrue(ranges[0].contains("10.200.3.4"))
        XCTAssertFalse(ranges[0].contains("11.0.0.1"))
        XCTAssertTrue(ranges[1].contains("127.0.0.1"))
        XCTAssertFalse(ranges[1].contains("127.0.0.2"))
        XCTAssertTrue(ranges[2].contains("fd12::1"))
        XCTAssertFalse(ranges[2].contains("fe80::1"))
        XCTAssertFalse(ranges[0].contains(""), "a request made in process has no address")
        // Prefixes that end inside a byte (the fuzzer's first finding: the mask overflowed a byte and trapped).
        XCTAssertTrue(try XCTUnwrap(AddressRange("10.16.0.0/12")).contains("10.31.255.1"))
        XCTAssertFalse(try XCTUnwrap(AddressRange("10.16.0.0/12")).contains("10.32.0.1"))
        XCTAssertTrue(try XCTUnwrap(AddressRange("10.0.0.0/1")).contains("127.0.0.1"))
        XCTAssertFalse(try XCTUnwrap(AddressRange("10.0.0.0/1")).contains("128.0.0.1"))
        XCTAssertTrue(try XCTUnwrap(AddressRange("::/0")).contains("fe80::1"))
        XCTAssertNil(AddressRange("10.0.0.0/33"))
        XCTAssertNil(AddressRange("example.org"))
        XCTAssertEqual(AddressRange.list("1.2.3.4,nope"), .failure(AddressRange.InvalidRange(text: "nope")))
    }

    func testGuessingIsSlowedPerAddressAndPerUser() {
        let throttle = LoginThrottle()
        for i in 0 ..< 5 { throttle.failed(address: "a", user: "u", now: Double(i)) }
        XCTAssertEqual(throttle.wait(address: "a", user: "u", now: 4), 1)
        XCTAssertEqual(throttle.wait(address: "b", user: "u", now: 4), 0, "another address is never held back by these (issue 58 item 9)")
        XCTAssertEqual(throttle.wait(address: "a", user: "v", now: 4), 1, "per address")
        XCTAssertEqual(throttle.wait(address: "b", user: "v", now: 4), 0)
        throttle.failed(address: "a", user: "u", now: 5)
        XCTAssertEqual(throttle.wait(address: "a", user: "u", now: 5), 2)
        XCTAssertEqual(throttle.wait(address: "a", user: "u", now: 7), 0)
        XCTAssertEqual(throttle.wait(address: "a", user: "u", now: 5 + 901), 0, "the window passed")
        throttle.succeeded(address: "a", user: "u")
        XCTAssertEqual(throttle.wait(address: "a", user: "u", now: 6), 0)
    }

    func testDecisionsByIdentity() {
        let tiered = FolderRuleFixtures.tiered, staff = FolderRuleFixtures.staff, hidden = FolderRuleFixtures.hidden
        let anonymous = Identity.anonymous
        var bob = Identity(); bob.user = "bob"
        var alice = Identity(); alice.user = "alice"; alice.groups = ["staff"]
        var shared = Identity(); shared.share = ShareToken(id: "s", expires: 0, kind: .folder, path: "staff")
        XCTAssertEqual(anonymous.decision(for: "works/a", rule: tiered), .limited(maxSize: 1000))
        XCTAssertEqual(bob.decision(for: "works/a", rule: tiered), .full)
        XCTAssertEqual(anonymous.decision(for: "staff/a", rule: staff), .refused(signedIn: false))
        XCTAssertEqual(bob.decision(for: "staff/a", rule: staff), .refused(signedIn: true))
        XCTAssertEqual(alice.decision(for: "staff/a", rule: staff), .full)
        XCTAssertEqual(shared.decision(for: "staff/a", rule: staff), .full)
        XCTAssertEqual(shared.decision(for: "drafts/a", rule: hidden), .hidden)
        var linked = staff
        linked.shareable = false
        XCTAssertEqual(shared.decision(for: "staff/a", rule: linked), .refused(signedIn: false), "a share never unlocks a linked file")
        XCTAssertEqual(shared.label, "share:s")
        XCTAssertEqual(alice.label, "alice")
    }

    func testFuzzInputsParse() throws {
        let inputs = try FuzzInputs.contents(of: "access")
        XCTAssertFalse(inputs.isEmpty)
        for (_, data) in inputs {
            guard let selector = data.first else { continue }
            let text = String(decoding: data.dropFirst(), as: UTF8.self)
            switch selector % 5 {
            case 0: _ = try? AccessPolicy.parse(text)
            case 1: _ = ShareToken.verify(text, key: key)
            case 2: _ = FormFields.cookie("tileserver_session", in: [text]); _ = FormFields.form(Array(data.dropFirst()))
            case 3: _ = try? UserTable.parse(text)
            default:
                if let range = AddressRange(text) { _ = range.contains("127.0.0.1"); _ = range.contains("::1") }
                _ = AddressRange.list(text)
            }
        }
        let policy = try XCTUnwrap(inputs.first { $0.name.hasSuffix("policy") })
        XCTAssertEqual(try AccessPolicy.parse(String(decoding: policy.data.dropFirst(), as: UTF8.self)).rules.count, 3)
    }
}

import Library

enum FolderRuleFixtures {
    static let tiered = FolderRule(view: .public, groups: [["*"]], maxPublicSize: 1000)
    static let staff = FolderRule(view: .restricted, groups: [["staff"]])
    static let hidden = FolderRule(view: .hidden, groups: [["staff"]])
}
