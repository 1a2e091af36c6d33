import POSIXSupport

/// Runs decode passes of different images side by side, at most `slots` at once, each on its own thread;
/// the rest wait in a queue ordered by what viewers wait for: passes a request is blocked on first, then small
/// (1/8) passes before full-resolution ones, then first come first served. Passes nobody waits for (finishing
/// a pyramid, resuming one a crash interrupted) run when nothing else is queued.
final class PassScheduler: Sendable {
    private struct Entry {
        let pass: PyramidPass
        let run: @Sendable () -> Void
    }

    private struct State {
        var queued: [Entry] = []
        var running = 0
    }

    let slots: Int
    private let state = Locked(State())

    init(slots: Int) {
        self.slots = max(1, slots)
    }

    /// Passes running and queued now.
    var counts: (running: Int, queued: Int) { state.withLock { ($0.running, $0.queued.count) } }

    /// Queues `pass`; `run` runs it (on a thread of its own) when a slot is free and it is first in line.
    func submit(_ pass: PyramidPass, run: @escaping @Sendable () -> Void) {
        state.withLock { $0.queued.append(Entry(pass: pass, run: run)) }
        startNext()
    }

    private func startNext() {
        while let next = state.withLock({ s -> Entry? in
            s.queued.removeAll { $0.pass.isCancelled }
            guard s.running < slots, !s.queued.isEmpty else { return nil }
            let i = s.queued.indices.min { Self.precedes(s.queued[$0].pass, s.queued[$1].pass) }!
            s.running += 1
            return s.queued.remove(at: i)
        }) {
            startDetachedThread { [self] in
                next.run()
                state.withLock { $0.running -= 1 }
                startNext()
            }
        }
    }

    /// Whether `a` should run before `b`.
    static func precedes(_ a: PyramidPass, _ b: PyramidPass) -> Bool {
        let waitedA = a.demand > 0, waitedB = b.demand > 0
        if waitedA != waitedB { return waitedA }
        if a.plan.shrink != b.plan.shrink { return a.plan.shrink > b.plan.shrink }
        return a.queuedAt < b.queuedAt
    }
}
