/// Counters of a byte-bounded cache, read together under its lock.
public struct CacheStatistics: Sendable, Equatable {
    public var hits = 0
    public var misses = 0
    public var evictions = 0
    public var entries = 0
    public var bytes = 0
    public var budget = 0
}
