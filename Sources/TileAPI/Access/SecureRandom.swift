import COpenSSL

/// Random bytes from the system's generator (OpenSSL's `RAND_bytes`, seeded by the kernel), and their base64url
/// text: session ids, tokens, salts, the share-link key.
enum SecureRandom {
    /// `count` random bytes; nil if the generator failed (it never returns predictable bytes instead).
    static func bytes(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else { return nil }
        return bytes
    }

    /// `count` random bytes as base64url text without padding.
    static func token(_ count: Int = 32) -> String {
        Base64.encode(bytes(count) ?? [], .url)
    }
}

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4) by OpenSSL, and the constant-time comparison of two MACs.
enum HMACSHA256 {
    static func mac(_ data: [UInt8], key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { k in
            data.withUnsafeBytes { d in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), d.baseAddress?.assumingMemoryBound(to: UInt8.self), d.count, &out, &length)
            }
        }
        precondition(done != nil && length == 32, "HMAC-SHA256 failed")
        return Array(out.prefix(32))
    }

    /// Whether `mac` is the MAC of `data` under `key`, compared in constant time.
    static func verify(_ mac: [UInt8], of data: [UInt8], key: [UInt8]) -> Bool {
        let expected = self.mac(data, key: key)
        guard mac.count == expected.count else { return false }
        return mac.withUnsafeBytes { a in expected.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }
}
