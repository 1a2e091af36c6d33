import POSIXSupport
import Synchronization

/// A least-recently-used cache bounded by bytes: O(1) lookup, insert and eviction (a dictionary into a
/// doubly linked list kept in arrays), safe to share between threads. An entry bigger than the whole budget is
/// not kept.
package final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A kept entry. Its place in the recency list is kept apart (`State.links`), so moving an entry copies two
    /// integers, not its key and value (each a retain and a release).
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var cost: Int
    }

    /// An entry's neighbours in the recency list (-1: none).
    @usableFromInline
    struct Link {
        @usableFromInline var previous = -1
        @usableFromInline var next = -1
        @inlinable init() {}
    }

    @usableFromInline
    struct State {
        @usableFromInline var index: [Key: Int] = [:]
        @usableFromInline var entries: [Entry?] = []
        @usableFromInline var links: [Link] = []
        @usableFromInline var free: [Int] = []
        @usableFromInline var head = -1 // most recent
        @usableFromInline var tail = -1 // least recent
        @usableFromInline var stats = CacheStatistics()
    }

    @usableFromInline let state: Locked<State>
    /// Bumped by every `remove` and `removeAll` that took something out (not by evictions): a copy of some
    /// entries kept elsewhere (an event loop's own) is still right while this has not moved.
    @usableFromInline let removalCount = Atomic<Int>(0)
    @usableFromInline let costOf: @Sendable (Value) -> Int

    package init(budget: Int, cost: @escaping @Sendable (Value) -> Int) {
        var initial = State()
        initial.stats.budget = max(0, budget)
        state = Locked(initial)
        costOf = cost
    }

    /// The value for `key`, marking it most recently used; counts a hit unless `countingHit` is false and a
    /// miss unless `countingMiss` is false (a look that another lookup, or an earlier one, already counts).
    /// Inlinable so that a caller in another module (the fast path's lookup of a tile) gets it specialised for
    /// its key and value, not the generic version with its metadata lookups and witness calls.
    @inlinable
    package func value(for key: Key, countingMiss: Bool = true, countingHit: Bool = true) -> Value? {
        state.withLock { s in
            guard let i = s.index[key] else {
                if countingMiss { s.stats.misses += 1 }
                return nil
            }
            if countingHit { s.stats.hits += 1 }
            Self.unlink(i, &s)
            Self.pushFront(i, &s)
            return s.entries[i]?.value
        }
    }

    /// Inserts or replaces `value`, then evicts least recently used entries until the total fits the budget;
    /// returns what was evicted (a value over the whole budget comes back itself, not kept). Inlinable, as the
    /// removals are, so the tile service in another module gets them specialised for its keys.
    @inlinable @discardableResult
    package func insert(_ value: Value, for key: Key) -> [(Key, Value)] {
        let cost = costOf(value)
        return state.withLock { s -> [(Key, Value)] in
            if let i = s.index[key] { Self.remove(i, &s) }
            guard cost <= s.stats.budget else { return [(key, value)] }
            let entry = Entry(key: key, value: value, cost: cost)
            let i: Int
            if let reuse = s.free.popLast() {
                s.entries[reuse] = entry
                i = reuse
            } else {
                s.entries.append(entry)
                s.links.append(Link())
                i = s.entries.count - 1
            }
            s.index[key] = i
            Self.pushFront(i, &s)
            s.stats.bytes += cost
            s.stats.entries += 1
            var evicted: [(Key, Value)] = []
            while s.stats.bytes > s.stats.budget, s.tail >= 0 {
                if let entry = s.entries[s.tail] { evicted.append((entry.key, entry.value)) }
                Self.remove(s.tail, &s)
                s.stats.evictions += 1
            }
            return evicted
        }
    }

    /// Removes the entry for `key`; returns whether there was one.
    @inlinable @discardableResult
    package func remove(_ key: Key) -> Bool {
        let removed = state.withLock { s in
            guard let i = s.index[key] else { return false }
            Self.remove(i, &s)
            return true
        }
        if removed { removalCount.add(1, ordering: .releasing) }
        return removed
    }

    /// How many removals there have been (see `removalCount`), read without the lock.
    package var removals: Int { removalCount.load(ordering: .acquiring) }

    /// Removes every entry whose key matches; returns how many went.
    @inlinable @discardableResult
    package func removeAll(where predicate: (Key) -> Bool) -> Int {
        let count = state.withLock { s in
            let doomed = s.index.filter { predicate($0.key) }.map(\.value)
            for i in doomed { Self.remove(i, &s) }
            return doomed.count
        }
        if count > 0 { removalCount.add(1, ordering: .releasing) }
        return count
    }

    /// Keys from most to least recently used (for tests and diagnostics).
    var keysByRecency: [Key] {
        state.withLock { s in
            var out: [Key] = []
            var i = s.head
            while i >= 0 {
                if let entry = s.entries[i] { out.append(entry.key) }
                i = s.links[i].next
            }
            return out
        }
    }

    package var statistics: CacheStatistics { state.withLock { $0.stats } }

    @inlinable
    static func remove(_ i: Int, _ s: inout State) {
        unlink(i, &s)
        guard let entry = s.entries[i].take() else { return }
        s.index[entry.key] = nil
        s.free.append(i)
        s.stats.bytes -= entry.cost
        s.stats.entries -= 1
    }

    @inlinable
    static func unlink(_ i: Int, _ s: inout State) {
        let link = s.links[i]
        if link.previous >= 0 { s.links[link.previous].next = link.next } else { s.head = link.next }
        if link.next >= 0 { s.links[link.next].previous = link.previous } else { s.tail = link.previous }
        s.links[i] = Link()
    }

    @inlinable
    static func pushFront(_ i: Int, _ s: inout State) {
        s.links[i].next = s.head
        s.links[i].previous = -1
        if s.head >= 0 { s.links[s.head].previous = i }
        s.head = i
        if s.tail < 0 { s.tail = i }
    }
}
