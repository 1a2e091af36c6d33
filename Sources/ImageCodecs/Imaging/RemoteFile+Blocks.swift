import POSIXSupport

/// Blocks fetched and claimed: a run of blocks on its way is claimed once, by a read sending its own GET or by a
/// prefetch (`ObjectPrefetch`), so that no block is fetched twice. A read that needs a block waits for a GET
/// already sent, but takes over a prefetch's run still queued for a thread and sends it itself: a request a client
/// waits for never waits behind reads ahead that have not left (behind 20 ms, tiles of a zoom waited 55 ms for
/// their blocks' GETs queued behind sixteen others ahead of them).
extension RemoteFile {
    /// Who fetches a run of blocks, `span` from `first`: a read (sent at once) or a prefetch, sent when a thread
    /// takes it unless a read took it over before. Guarded by `loading`.
    final class Claim: @unchecked Sendable {
        let first: Int64
        let span: Int64
        var sent: Bool

        init(first: Int64, span: Int64, sent: Bool) {
            (self.first, self.span, self.sent) = (first, span, sent)
        }
    }

    static let loading = ConditionLock()
    nonisolated(unsafe) static var inFlight: [BlockKey: Claim] = [:]   // guarded by `loading`

    func key(_ index: Int64) -> BlockKey { BlockKey(path: path, etag: version.tag, index: index) }

    /// The object's blocks, the last one short.
    var blockCount: Int64 { (version.size + Int64(Self.blockBytes) - 1) / Int64(Self.blockBytes) }

    /// Claims `span` blocks from `first` (under `loading`).
    private func claim(_ first: Int64, _ span: Int64, sent: Bool) -> Claim {
        let claim = Claim(first: first, span: span, sent: sent)
        for i in first ..< first + span { Self.inFlight[key(i)] = claim }
        return claim
    }

    /// Lets go of the blocks `claim` still holds and wakes whoever waits for them.
    private func release(_ claim: Claim) {
        Self.loading.withLock {
            for i in claim.first ..< claim.first + claim.span where Self.inFlight[key(i)] === claim { Self.inFlight[key(i)] = nil }
            Self.loading.broadcast()
        }
    }

    /// Starts fetching the blocks under `ranges` that are neither cached nor on their way, in the background
    /// (`ObjectPrefetch`): consecutive blocks in one GET of at most `readAhead`. Blocks that do not fit its queue
    /// are left for the reads that need them. `ahead`: reads ahead of the viewer (`--object-prefetch`); `needed`:
    /// what an open reads next (fetched on threads of normal priority).
    func prefetch(_ ranges: [(offset: Int64, count: Int)], ahead: Bool, remembered: Bool = false, needed: Bool = false) {
        let total = blockCount
        var wanted = Set<Int64>()
        for range in ranges where range.count > 0 && range.offset < version.size && !(structure?.holds(count: range.count, at: range.offset) ?? false) {
            let first = max(0, range.offset) / Int64(Self.blockBytes)
            let last = min(total - 1, (range.offset + Int64(range.count) - 1) / Int64(Self.blockBytes))
            if first <= last { wanted.formUnion(first ... last) }
        }
        guard !wanted.isEmpty else { return }
        let cache = Self.blocks.withLock { $0 }
        // No GET longer than the quarter of the cache that may be on its way.
        let runLimit = max(1, min(Int64(Self.readAhead), Int64(cache.statistics.budget / 4 / Self.blockBytes)))
        let claims = Self.loading.withLock { () -> [Claim] in
            var runs: [(Int64, Int64)] = []
            for index in wanted.sorted() {
                if Self.inFlight[key(index)] != nil || cache.value(for: key(index), countingMiss: false, countingHit: false) != nil { continue }
                if let last = runs.last, last.0 + last.1 == index, last.1 < runLimit {
                    runs[runs.count - 1].1 += 1
                } else {
                    runs.append((index, 1))
                }
            }
            runs = ObjectPrefetch.shared.admit(runs, blockBytes: Self.blockBytes, budget: cache.statistics.budget, ahead: ahead,
                                               remembered: remembered)
            return runs.map { claim($0.0, $0.1, sent: false) }
        }
        for claim in claims {
            ObjectPrefetch.shared.submit(bytes: Int(claim.span) * Self.blockBytes, ahead: ahead, needed: needed) { [self] () -> Bool in
                let taken = Self.loading.withLock { () -> Bool in
                    guard Self.inFlight[key(claim.first)] === claim else { return true }
                    claim.sent = true
                    return false
                }
                guard !taken else { return false }
                defer { release(claim) }
                let started = MonotonicClock.nanoseconds()
                guard let fetched = try? fetch(claim.first, claim.span) else { return true }
                // A GET of one block tells the store's distance as a read's does (a longer one its bandwidth too):
                // an open's head and directories decide whether to read ahead before its first tiles are asked for.
                if claim.span == 1 { ObjectPrefetch.shared.observe(since: started) }
                store(fetched, from: claim.first, in: cache)
                return true
            }
        }
    }

    /// Blocks `first` to `first + span - 1` (those the object has), received straight into them: fewer, and the
    /// last short, when the object ends sooner.
    func fetch(_ first: Int64, _ span: Int64) throws(ObjectReadError) -> [ObjectBlock] {
        let start = first * Int64(Self.blockBytes)
        let total = max(0, min(Int64(span) * Int64(Self.blockBytes), version.size - start))
        let blocks = stride(from: Int64(0), to: total, by: Self.blockBytes).map {
            ObjectBlock(capacity: Int(min(Int64(Self.blockBytes), total - $0)))
        }
        guard !blocks.isEmpty else { return [] }
        var left = try objects.read(of: path, offset: start, into: blocks.map(\.buffer), version: version)
        for block in blocks {
            block.filled(left)
            left -= block.count
        }
        return blocks.filter { $0.count > 0 }
    }

    /// Puts blocks fetched from block `index` on in the cache; block `wanted`.
    @discardableResult
    func store(_ fetched: [ObjectBlock], from index: Int64, in cache: LRUCache<BlockKey, ObjectBlock>, wanted: Int64? = nil) -> ObjectBlock? {
        var kept: ObjectBlock?
        for (i, block) in zip(index..., fetched) {
            if i == (wanted ?? index) { kept = block }
            if i == 0 { keepHead(block) }
            _ = cache.insert(block, for: key(i))
        }
        return kept
    }

    /// Block `index`, fetched with the blocks after it (`span` of them, or as the read-ahead says) when missing,
    /// or with the run of a prefetch still queued that holds it.
    func block(_ index: Int64) throws(ObjectReadError) -> ObjectBlock {
        let cache = Self.blocks.withLock { $0 }
        let total = blockCount
        if let hit = cache.value(for: key(index)) {
            streamAhead(index, total: total)
            return hit
        }
        let streak = sequence.withLock { $0.last == index - 1 ? $0.streak + 1 : 0 }
        let span = max(1, min(min(Int64(Self.readAhead), Int64(1) << min(streak, 3)), total - index))
        // Claim the blocks to fetch, take over a queued prefetch's, or wait for a GET sent.
        let mine = Self.loading.withLock { () -> Claim? in
            while let holder = Self.inFlight[key(index)] {
                if holder.sent {
                    BlockingWait.during { Self.loading.wait() }
                    continue
                }
                return claim(holder.first, holder.span, sent: true)
            }
            if cache.value(for: key(index), countingMiss: false) != nil { return nil }
            var n: Int64 = 1
            while n < span, Self.inFlight[key(index + n)] == nil,
                  cache.value(for: key(index + n), countingMiss: false, countingHit: false) == nil { n += 1 }
            return claim(index, n, sent: true)
        }
        guard let mine else {
            if let hit = cache.value(for: key(index)) {
                streamAhead(index, total: total)
                return hit
            }
            return try block(index)    // fetched and already dropped again: fetch it now
        }
        defer { release(mine) }
        let started = MonotonicClock.nanoseconds()
        let fetched = try fetch(mine.first, mine.span)
        ObjectPrefetch.shared.observe(since: started)
        sequence.withLock { $0 = (mine.first + mine.span - 1, streak, streak >= 2 ? mine.first + mine.span : -1) }
        let kept = store(fetched, from: mine.first, in: cache, wanted: index)
        streamAhead(index, total: total)
        return kept ?? ObjectBlock(capacity: 0)    // past the object's end: no bytes
    }

    /// A decode streaming through the object (the third fetch in a row): the next run of blocks is fetched while
    /// the one before it is decoded, once the reads are within a run of the end of what was asked for, so the
    /// decode does not stop for a round trip at each run.
    private func streamAhead(_ index: Int64, total: Int64) {
        let run = Int64(Self.readAhead)
        let next = sequence.withLock { state -> Int64? in
            guard state.ahead >= 0, state.ahead < total, index >= state.ahead - run else { return nil }
            defer { state = (state.ahead + run - 1, state.streak, state.ahead + run) }
            return state.ahead
        }
        guard let next else { return }
        prefetch([(offset: next * Int64(Self.blockBytes), count: Int(run) * Self.blockBytes)], ahead: false)
    }
}
