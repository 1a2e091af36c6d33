#if canImport(Glibc)
import Glibc
#endif

/// The current time as the `Date` header wants it (IMF-fixdate, "Sun, 22 Nov 2026 14:40:00 GMT"), formatted
/// once a second per thread. (Fast answers take theirs from `FastFraming`, the access log from its own stamp.)
public enum HTTPDate {
    private final class Cache {
        var second = -1
        var imf = ""
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() } }
        return key
    }()

    public static func now() -> String { current().imf }

    private static func current() -> Cache {
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
            cache.imf = format("%a, %d %b %Y %H:%M:%S GMT", &parts)
        }
        return cache
    }

    private static func format(_ pattern: String, _ parts: inout tm) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
