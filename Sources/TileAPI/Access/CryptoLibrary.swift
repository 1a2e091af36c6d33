import COpenSSL

/// libcrypto (OpenSSL 3), which both our HMACs and libcurl's SigV4 signing use, kept whole until the process ends.
/// By default OpenSSL frees its state from an `atexit` handler; a server's exit runs while decode passes and the
/// shared store's writers are still signing requests on their own threads, and one of them then crashed inside
/// libcrypto (a SIGTERM during writes: 2 stops of 11 against a fast store). The kernel reclaims the memory.
package enum CryptoLibrary {
    /// Must run before anything else uses libcrypto (the first initialisation decides); false if OpenSSL refused.
    @discardableResult
    package static func keepUntilExit() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}
