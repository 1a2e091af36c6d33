/* OpenSSL's libcrypto: HMAC-SHA256 of share links, constant-time comparison, the system's random bytes. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
