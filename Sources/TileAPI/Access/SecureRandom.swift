import Crypto

/// Random bytes from swift-crypto's system generator, and their base64url text: session ids, tokens, salts,
/// the share-link key.
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8]? {
        let key = SymmetricKey(size: SymmetricKeySize(bitCount: count * 8))
        return key.withUnsafeBytes { Array($0) }
    }

    /// `count` random bytes as base64url text without padding.
    static func token(_ count: Int = 32) -> String {
        Base64.encode(bytes(count) ?? [], .url)
    }
}
