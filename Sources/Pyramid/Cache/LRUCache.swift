import POSIXSupport
import Synchronization

/// A least-recently-used cache bounded by bytes: O(1) lookup, insert and eviction (a dictionary into a
/// doubly linked list kept in arrays), safe to share between threads. An entry bigger than the whole budget is
/// not kept.
public final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var previous: Int
        var next: Int
    }

    private struct State {
        var index: [Key: Int] = [:]
        var nodes: [Node?] = []
        var free: [Int] = []
        var head = -1 // most recent
        var tail = -1 // least recent
        var stats = CacheStatistics()
    }

    private let state: Locked<State>
    /// Bumped by every `remove` and `removeAll` that took something out (not by evictions): a copy of some
    /// entries kept elsewhere (an event loop's own) is still right while this has not moved.
    private let removalCount = Atomic<Int>(0)
    private let costOf: @Sendable (Value) -> Int

    public init(budget: Int, cost: @escaping @Sendable (Value) -> Int) {
        var initial = State()
        initial.stats.budget = max(0, budget)
        state = Locked(initial)
        costOf = cost
    }

    /// The value for `key`, marking it most recently used; counts a hit unless `countingHit` is false and a
    /// miss unless `countingMiss` is false (a look that another lookup, or an earlier one, already counts).
    public func value(for key: Key, countingMiss: Bool = true, countingHit: Bool = true) -> Value? {
        state.withLock { s in
            guard let i = s.index[key] else {
                if countingMiss { s.stats.misses += 1 }
                return nil
            }
            if countingHit { s.stats.hits += 1 }
            Self.unlink(i, &s)
            Self.pushFront(i, &s)
            return s.nodes[i]!.value
        }
    }

    /// Inserts or replaces `value`, then evicts least recently used entries until the total fits the budget;
    /// returns what was evicted (a value over the whole budget comes back itself, not kept).
    @discardableResult
    public func insert(_ value: Value, for key: Key) -> [(Key, Value)] {
        let cost = costOf(value)
        return state.withLock { s -> [(Key, Value)] in
            if let i = s.index[key] {
                s.stats.bytes -= s.nodes[i]!.cost
                s.stats.entries -= 1
                Self.unlink(i, &s)
                s.nodes[i] = nil
                s.free.append(i)
                s.index[key] = nil
            }
            guard cost <= s.stats.budget else { return [(key, value)] }
            let node = Node(key: key, value: value, cost: cost, previous: -1, next: -1)
            let i: Int
            if let reuse = s.free.popLast() {
                s.nodes[reuse] = node
                i = reuse
            } else {
                s.nodes.append(node)
                i = s.nodes.count - 1
            }
            s.index[key] = i
            Self.pushFront(i, &s)
            s.stats.bytes += cost
            s.stats.entries += 1
            var evicted: [(Key, Value)] = []
            while s.stats.bytes > s.stats.budget, s.tail >= 0 {
                let node = s.nodes[s.tail]!
                evicted.append((node.key, node.value))
                Self.remove(s.tail, &s)
                s.stats.evictions += 1
            }
            return evicted
        }
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    public func remove(_ key: Key) -> Bool {
        let removed = state.withLock { s in
            guard let i = s.index[key] else { return false }
            Self.remove(i, &s)
            return true
        }
        if removed { removalCount.add(1, ordering: .releasing) }
        return removed
    }

    /// How many removals there have been (see `removalCount`), read without the lock.
    public var removals: Int { removalCount.load(ordering: .acquiring) }

    /// Removes every entry whose key matches; returns how many went.
    @discardableResult
    public func removeAll(where predicate: (Key) -> Bool) -> Int {
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
                out.append(s.nodes[i]!.key)
                i = s.nodes[i]!.next
            }
            return out
        }
    }

    public var statistics: CacheStatistics { state.withLock { $0.stats } }

    private static func remove(_ i: Int, _ s: inout State) {
        let node = s.nodes[i]!
        unlink(i, &s)
        s.index[node.key] = nil
        s.nodes[i] = nil
        s.free.append(i)
        s.stats.bytes -= node.cost
        s.stats.entries -= 1
    }

    private static func unlink(_ i: Int, _ s: inout State) {
        let node = s.nodes[i]!
        if node.previous >= 0 { s.nodes[node.previous]!.next = node.next } else { s.head = node.next }
        if node.next >= 0 { s.nodes[node.next]!.previous = node.previous } else { s.tail = node.previous }
        s.nodes[i]!.previous = -1
        s.nodes[i]!.next = -1
    }

    private static func pushFront(_ i: Int, _ s: inout State) {
        s.nodes[i]!.next = s.head
        s.nodes[i]!.previous = -1
        if s.head >= 0 { s.nodes[s.head]!.previous = i }
        s.head = i
        if s.tail < 0 { s.tail = i }
    }
}
