import Glibc
import POSIXSupport

/// Runs decode passes of different images side by side, at most `slots` at once, each on its own thread;
/// the rest wait in a queue ordered by what viewers wait for: passes a request is blocked on first, then small
/// (1/8) passes before full-resolution ones, then first come first served. Passes nobody waits for (finishing
/// a pyramid, resuming one a crash interrupted) run when nothing else is queued.
///
/// With two slots or more, one of them takes the longest pass of that order instead (the most pixels): a folder's
/// thumbnails all wait together, and the largest master's 1/8 pass, started last, would finish alone long after
/// the others; started first, it runs beside them. That slot is only taken while another pass runs, and picks
/// `burst` later, once the requests a viewer sends together have all queued their passes (which of them reached
/// the server first is a race); the other slots keep the first-come order and start at once, so a lone image or
/// the small thumbnails never wait.
final class PassScheduler: Sendable {
    private struct Entry {
        let pass: PyramidPass
        let run: @Sendable () -> Void
    }

    private struct State {
        var queued: [Entry] = []
        var running = 0
        /// Whether the slot for the longest pass is taken.
        var longestRunning = false
    }

    /// What a free slot starts: a pass now, or a pick of the longest after `burst`.
    private enum Start {
        case now(Entry)
        case longest
    }

    let slots: Int
    private let state = Locked(State())
    /// How long the slot for the longest pass waits before it picks (microseconds).
    static let burst: UInt32 = 5_000

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
        while let start = state.withLock({ s -> Start? in
            s.queued.removeAll { $0.pass.isCancelled }
            guard s.running < slots, !s.queued.isEmpty else { return nil }
            defer { s.running += 1 }
            if slots > 1 && !s.longestRunning && s.running > 0 {
                s.longestRunning = true
                return .longest
            }
            return .now(Self.take(from: &s.queued, longestFirst: false))
        }) {
            switch start {
            case .now(let entry):
                startDetachedThread { [self] in
                    entry.run()
                    state.withLock { $0.running -= 1 }
                    startNext()
                }
            case .longest:
                startDetachedThread { [self] in
                    usleep(Self.burst)
                    let entry = state.withLock { s -> Entry? in
                        s.queued.removeAll { $0.pass.isCancelled }
                        return s.queued.isEmpty ? nil : Self.take(from: &s.queued, longestFirst: true)
                    }
                    entry?.run()
                    state.withLock {
                        $0.running -= 1
                        $0.longestRunning = false
                    }
                    startNext()
                }
            }
        }
    }

    private static func take(from queued: inout [Entry], longestFirst: Bool) -> Entry {
        let i = queued.indices.min { precedes(queued[$0].pass, queued[$1].pass, longestFirst: longestFirst) }!
        return queued.remove(at: i)
    }

    /// Whether `a` should run before `b`; `longestFirst`: among passes alike in the rest, the one with more pixels.
    static func precedes(_ a: PyramidPass, _ b: PyramidPass, longestFirst: Bool = false) -> Bool {
        let waitedA = a.demand > 0, waitedB = b.demand > 0
        if waitedA != waitedB { return waitedA }
        if a.plan.shrink != b.plan.shrink { return a.plan.shrink > b.plan.shrink }
        if longestFirst && a.pixels != b.pixels { return a.pixels > b.pixels }
        return a.queuedAt < b.queuedAt
    }
}
