import POSIXSupport

/// Slows password guessing, per client address and per user name and address together: the first `free`
/// failures within `window` seconds cost nothing; after that each attempt must wait 2^(n − free) seconds (at most
/// `maxDelay`) after the last failure, or it is refused with 429 and `Retry-After` without its password being
/// checked, right or wrong. Nothing is counted per name alone, so failures from one address never hold back a
/// user signing in from another: someone cannot lock anyone else out (behind a proxy the address is the one it
/// reports, `AccessControl.clientAddress`). A success clears the address's and the pair's counts. Nothing
/// sleeps: a refused attempt costs a lookup. At most `capacity` keys are kept (the oldest dropped), so a flood
/// of addresses cannot fill memory.
final class LoginThrottle: Sendable {
    struct Record {
        var failures: Int
        var last: Double
    }

    let free = 5
    let window = 900.0
    let maxDelay = 900.0
    let capacity = 100_000
    private let records = Locked<[String: Record]>([:])

    /// Seconds to wait before an attempt for `user` from `address` is heard; 0: now.
    func wait(address: String, user: String, now: Double = MonotonicClock.seconds()) -> Int {
        records.withLock { records in
            [Self.key(address: address), Self.key(user: user, address: address)].map { key -> Double in
                guard let record = records[key], now - record.last < window, record.failures >= free else { return 0 }
                let delay = min(maxDelay, Double(1 << min(20, record.failures - free)))
                return max(0, record.last + delay - now)
            }.max().map { Int($0.rounded(.up)) } ?? 0
        }
    }

    func failed(address: String, user: String, now: Double = MonotonicClock.seconds()) {
        records.withLock { records in
            if records.count >= capacity {
                let cutoff = now - window
                records = records.filter { $0.value.last > cutoff }
                if records.count >= capacity { records.removeAll() }
            }
            for key in [Self.key(address: address), Self.key(user: user, address: address)] {
                var record = records[key] ?? Record(failures: 0, last: now)
                if now - record.last >= window { record.failures = 0 }
                record.failures += 1
                record.last = now
                records[key] = record
            }
        }
    }

    func succeeded(address: String, user: String) {
        records.withLock { records in
            records[Self.key(address: address)] = nil
            records[Self.key(user: user, address: address)] = nil
        }
    }

    static func key(address: String) -> String { "a " + address }
    static func key(user: String, address: String) -> String { "u " + address + " " + user }
}
