import POSIXSupport

/// Blocks of objects fetched before anyone asks for them (`RemoteFile.prefetch`): a master's directories beside
/// its first block, and the tiles a viewer will ask for next. On threads and connections of their own, so a
/// request a client waits for never queues behind them; a read that needs a block whose GET has left waits for it
/// instead of sending another, and sends a GET still queued here itself (`RemoteFile.block`). At most a quarter of
/// the block cache's budget is on its way at once, and at most `queueLimit` GETs wait: what does not fit is left
/// for the reads that need it.
///
/// Reads ahead of the viewer are made only while the store is far: while even its quick GETs take `farSeconds` or
/// more (of the last 32 GETs a read waited for, one-block GETs made ahead and the shared tile store's listing at
/// start, the quickest but an eighth; decided from the fourth on, so that the opens of a few masters decide it
/// before their first tiles are asked for). Distance is a floor under every request; a
/// store on the same machine or network answers some GETs in a millisecond or two however slow others are (a
/// cold disk), and there the GETs read ahead cost more (its work, on the cores the server shares) than the waits
/// they save: measured against SeaweedFS on the same two cores, the Mirador trace took 2.66× a local disk's time
/// with them and 1.62× without.
final class ObjectPrefetch: @unchecked Sendable {
    /// 32 threads a queue: a thread mostly waits on the network. With 16, behind 20 ms, the ends of four masters
    /// opened together (20 GETs) waited a round trip for a thread, and so did a zoom's reads ahead (the Universal
    /// Viewer trace replayed from one process: 0.207 s against 0.195 s, medians of three runs of three).
    static let shared = ObjectPrefetch(threads: 32)

    /// Prefetch GETs that may wait for a thread.
    static let queueLimit = 64
    /// A store whose quick GETs take this long is far: reads ahead of the viewer pay there.
    static let farSeconds = 0.008
    /// GETs remembered for the floor, and how many it takes to have one.
    static let window = 32
    static let first = 4

    /// Whether reads ahead of the viewer are made (`--object-prefetch`); a master's directories always are.
    package static func configure(enabled: Bool) {
        shared.lock.withLock { shared.enabled = enabled }
    }

    /// Whether reads ahead are made at all (`--object-prefetch`).
    static var isEnabled: Bool { shared.lock.withLock { shared.enabled } }

    /// Prefetch GETs made, those of them ahead of the viewer, and the floor of a block GET's seconds (nil before
    /// enough GETs).
    package static var statistics: (fetches: Int, ahead: Int, floor: Double?) {
        shared.lock.withLock { (shared.fetches, shared.aheadFetches, shared.floor) }
    }

    /// Its state, and one condition a queue: a GET submitted wakes one thread of its own queue, not all 64.
    private let lock = ConditionLock(conditions: 2)
    /// Threads for each of the two queues.
    let threads: Int
    private var queue: [(bytes: Int, ahead: Bool, job: @Sendable () -> Bool)] = []
    /// GETs an open needs (a master's head and end, its directories): on threads of normal priority, so a busy
    /// moment (a server starting, its index reading every master) does not hold back the first answers.
    private var needed: [(bytes: Int, ahead: Bool, job: @Sendable () -> Bool)] = []
    private var neededStarted = 0
    private var reserved = 0
    private var started = 0
    private var enabled = true
    private var fetches = 0
    private var aheadFetches = 0
    /// Seconds the last `window` GETs of blocks took (a ring), and the next slot.
    private var recent: [Double] = []
    private var next = 0

    /// The quickest recent GET but an eighth of them; nil until there are `first` of them.
    private var floor: Double? {
        recent.count < Self.first ? nil : recent.sorted()[recent.count / 8]
    }

    init(threads: Int) {
        self.threads = threads
    }

    /// The runs of blocks (first, count) that may be fetched now, their bytes reserved; `ahead` for reads ahead
    /// of the viewer and `remembered` for the blocks a process before read, which `--object-prefetch off` refuses
    /// (reads ahead are made only while the store is far too; remembered blocks are read by the views that follow
    /// wherever the store is, and fetched together cost fewer GETs than one by one).
    func admit(_ runs: [(Int64, Int64)], blockBytes: Int, budget: Int, ahead: Bool, remembered: Bool = false) -> [(Int64, Int64)] {
        lock.withLock {
            guard !ahead || (enabled && (floor ?? 0) >= Self.farSeconds), !remembered || enabled else { return [] }
            var taken: [(Int64, Int64)] = []
            for run in runs {
                let bytes = Int(run.1) * blockBytes
                guard queue.count + needed.count + taken.count < Self.queueLimit else { break }
                guard reserved + bytes <= max(budget / 4, blockBytes) else { continue }
                reserved += bytes
                taken.append(run)
            }
            return taken
        }
    }

    /// Notes how long a GET took that was sent at `started` (`MonotonicClock.nanoseconds()`): one a read waited
    /// for, a one-block GET an open made ahead, or the shared tile store's listing at start.
    func observe(since started: Int64) {
        observe(seconds: Double(MonotonicClock.nanoseconds() - started) / 1e9)
    }

    /// Notes how long a GET took.
    func observe(seconds: Double) {
        lock.withLock {
            if recent.count < Self.window { recent.append(seconds) } else { recent[next] = seconds }
            next = (next + 1) % Self.window
        }
    }

    /// Runs `job` (a GET of `bytes` admitted before; it says whether it sent it, or a read took it over) on a
    /// prefetch thread; what an open needs (`needed`) on threads of its own, ahead of the rest. Both at normal
    /// priority: such a thread mostly waits on the network, and a read ahead that starts late is of no use (on
    /// low-priority threads, behind 20 ms, the GETs ahead of a zoom left up to 9 ms after the tiles that asked for
    /// them, on two busy cores; the Universal Viewer trace took 2.34x a local disk's time with them, 2.20x without,
    /// p99 68 against 66 ms).
    func submit(bytes: Int, ahead: Bool, needed isNeeded: Bool = false, _ job: @escaping @Sendable () -> Bool) {
        lock.withLock {
            if isNeeded {
                needed.append((bytes, ahead, job))
                if neededStarted < threads {
                    neededStarted += 1
                    startDetachedThread { [self] in run(needed: true) }
                }
            } else {
                queue.append((bytes, ahead, job))
                if started < threads {
                    started += 1
                    startDetachedThread { [self] in run(needed: false) }
                }
            }
            lock.signal(isNeeded ? 1 : 0)
        }
    }

    private func run(needed isNeeded: Bool) {
        while true {
            let next = lock.withLock { () -> (bytes: Int, ahead: Bool, job: @Sendable () -> Bool) in
                while isNeeded ? needed.isEmpty : queue.isEmpty { lock.wait(on: isNeeded ? 1 : 0) }
                return isNeeded ? needed.removeFirst() : queue.removeFirst()
            }
            let sent = next.job()
            lock.withLock {
                reserved -= next.bytes
                if sent {
                    fetches += 1
                    if next.ahead { aheadFetches += 1 }
                }
            }
        }
    }
}
