#if canImport(Glibc)
import Glibc
#endif

/// IMF-fixdate for the `Date` header ("Sun, 22 Nov 2026 14:40:00 GMT"), formatted once a second per thread.
enum HTTPDate {
    private final class Cache {
        var second = -1
        var text = ""
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() } }
        return key
    }()

    static func now() -> String {
        let cache: Cache
        if let raw = pthread_getspecific(key) {
            cache = Unmanaged<Cache>.fromOpaque(raw).takeUnretainedValue()
        } else {
            cache = Cache()
            pthread_setspecific(key, Unmanaged.passRetained(cache).toOpaque())
        }
        var t = time(nil)
        if Int(t) != cache.second {
            cache.second = Int(t)
            var parts = tm()
            gmtime_r(&t, &parts)
            var buffer = [CChar](repeating: 0, count: 64)
            let n = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
            cache.text = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return cache.text
    }
}
