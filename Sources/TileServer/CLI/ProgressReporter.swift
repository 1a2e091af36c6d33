import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// Build progress on standard error: a redrawn bar (percent, tiles per second, time left) on a terminal,
/// a plain line every 10 % otherwise, nothing when quiet.
final class ProgressReporter: Sendable {
    enum Style { case bar, lines, quiet }

    private struct State {
        var lastDraw = 0.0
        var lastDecile = -1
    }

    private let style: Style
    private let started = MonotonicClock.seconds()
    private let state = Locked(State())

    init(quiet: Bool) {
        style = quiet ? .quiet : (isatty(STDERR_FILENO) == 1 ? .bar : .lines)
    }

    func report(done: Int, total: Int) {
        guard style != .quiet, total > 0 else { return }
        let now = MonotonicClock.seconds()
        let elapsed = max(now - started, 1e-6)
        let percent = done * 100 / total
        let line: String? = state.withLock { s in
            switch style {
            case .bar:
                guard now - s.lastDraw >= 0.1 || done == total else { return nil }
                s.lastDraw = now
                let rate = Double(done) / elapsed
                let left = rate > 0 ? Double(total - done) / rate : 0
                let filled = percent * 30 / 100
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
                return "\r\(pad(percent, 3))% [\(bar)] \(Int(rate)) tiles/s, \(clock(left)) left  " + (done == total ? "\n" : "")
            case .lines:
                let decile = percent / 10
                guard decile > s.lastDecile else { return nil }
                s.lastDecile = decile
                return "build: \(percent)% (\(done) of \(total) tiles, \(Int(elapsed)) s)\n"
            case .quiet:
                return nil
            }
        }
        if let line {
            var text = line
            text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
    }

    private func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: " ", count: max(0, width - s.count)) + s
    }

    private func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return "\(s / 60):" + (s % 60 < 10 ? "0" : "") + String(s % 60)
    }
}
