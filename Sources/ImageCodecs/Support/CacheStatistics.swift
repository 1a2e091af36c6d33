/// Counters of a byte-bounded cache, read together under its lock.
package struct CacheStatistics: Sendable, Equatable {
    package var hits = 0
    package var misses = 0
    package var evictions = 0
    package var entries = 0
    package var bytes = 0
    package var budget = 0
}
