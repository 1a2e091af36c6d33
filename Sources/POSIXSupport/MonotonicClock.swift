#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC`: time that never jumps, for timeouts, throttles and durations.
package enum MonotonicClock {
    package static func seconds() -> Double {
        let ns = nanoseconds()
        return Double(ns / 1_000_000_000) + Double(ns % 1_000_000_000) / 1e9
    }

    package static func nanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
