import CArgon2

/// Passwords as argon2id hashes in PHC form (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`), made and checked by
/// libargon2; the salt from the system's random source. Checking costs what hashing does (19 MiB, and about
/// 40 ms here: the unit test's two hashes and three checks take 0.15–0.19 s), which is what makes guessing slow; checking an unknown user's password costs the same, so the
/// time of an answer does not tell whether the user exists.
enum PasswordHash {
    /// OWASP's recommended minimum for argon2id.
    static let memoryKiB: UInt32 = 19_456
    static let passes: UInt32 = 2
    static let lanes: UInt32 = 1

    /// A new hash of `password`; nil only if the system could not supply random bytes or memory.
    static func make(_ password: String) -> String? {
        guard let salt = SecureRandom.bytes(16) else { return nil }
        let length = argon2_encodedlen(passes, memoryKiB, lanes, UInt32(salt.count), 32, Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let password = Array(password.utf8)
        let rc = password.withUnsafeBytes { pw in
            salt.withUnsafeBytes { s in
                argon2id_hash_encoded(passes, memoryKiB, lanes, pw.baseAddress, pw.count, s.baseAddress, s.count, 32, &encoded, length)
            }
        }
        guard rc == ARGON2_OK.rawValue else { return nil }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches `hash` (libargon2 compares in constant time).
    static func verify(_ password: String, against hash: String) -> Bool {
        guard hash.hasPrefix("$argon2id$") else { return false }
        let password = Array(password.utf8)
        return password.withUnsafeBytes { pw in
            argon2id_verify(hash, pw.baseAddress, pw.count) == ARGON2_OK.rawValue
        }
    }

    /// A hash no password matches in practice, checked against when the user does not exist.
    static let decoy: String = make("decoy password for absent users") ?? ""
}
