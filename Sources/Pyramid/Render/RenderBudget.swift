import POSIXSupport

/// The one pool of pixel memory that region renders, view images, IIIF outputs and whole-image decodes draw
/// from, so no mix of requests can take more than `capacity` bytes for pixels at once. A request that does
/// not fit waits, first come first served, in a queue of at most `queueLimit`; a full queue or a wait past
/// `maxWait` seconds is `RenderBudgetError.busy` (the server's 503), and a request larger than the whole
/// budget is `tooLarge` (callers band such work so it fits, and refuse only what cannot be banded).
package final class RenderBudget: @unchecked Sendable {
    let capacity: Int
    let queueLimit: Int
    let maxWait: Double
    private let lock = ConditionLock()
    private var inUse = 0
    private var peak = 0
    private var refusals = 0
    /// Tickets of waiting requests, oldest first; only the oldest may take memory, so large requests are not
    /// starved by a stream of small ones.
    private var queue: [UInt64] = []
    private var nextTicket: UInt64 = 0

    package init(capacity: Int, queueLimit: Int = 64, maxWait: Double = 10) {
        self.capacity = capacity
        self.queueLimit = queueLimit
        self.maxWait = maxWait
    }

    /// Pixel memory a lease holds until it is released or dropped.
    final class Lease: @unchecked Sendable {
        package let bytes: Int
        private weak var budget: RenderBudget?
        private var released = false

        fileprivate init(bytes: Int, budget: RenderBudget) {
            self.bytes = bytes
            self.budget = budget
        }

        func release() {
            guard !released else { return }
            released = true
            budget?.give(bytes)
        }

        deinit { release() }
    }

    /// A snapshot for `/metrics`.
    package struct Usage: Sendable {
        package let inUse: Int
        package let peak: Int
        package let waiting: Int
        package let refusals: Int
    }

    var usage: Usage {
        lock.withLock { Usage(inUse: inUse, peak: peak, waiting: queue.count, refusals: refusals) }
    }

    /// Takes `bytes`, waiting for them if needed.
    func acquire(_ bytes: Int) throws(RenderBudgetError) -> Lease {
        let bytes = max(0, bytes)
        let outcome: RenderBudgetError? = lock.withLock {
            guard bytes <= capacity else {
                refusals += 1
                return .tooLarge(bytes: bytes, capacity: capacity)
            }
            if queue.isEmpty && inUse + bytes <= capacity {
                take(bytes)
                return nil
            }
            guard queue.count < queueLimit else {
                refusals += 1
                return .busy(waiting: queue.count, retryAfter: retryAfter)
            }
            nextTicket += 1
            let ticket = nextTicket
            queue.append(ticket)
            let deadline = MonotonicClock.seconds() + maxWait
            while !(queue.first == ticket && inUse + bytes <= capacity) {
                if !lock.wait(until: deadline) && MonotonicClock.seconds() >= deadline {
                    queue.removeAll { $0 == ticket }
                    refusals += 1
                    lock.broadcast() // the next in line may fit now
                    return .busy(waiting: queue.count, retryAfter: retryAfter)
                }
            }
            queue.removeFirst()
            take(bytes)
            lock.broadcast()
            return nil
        }
        if let outcome { throw outcome }
        return Lease(bytes: bytes, budget: self)
    }

    /// Seconds a refused client should wait: about how long the queue ahead takes to drain.
    private var retryAfter: Int { max(1, min(Int(maxWait.rounded(.up)), 1 + queue.count / 8)) }

    private func take(_ bytes: Int) {
        inUse += bytes
        peak = max(peak, inUse)
    }

    fileprivate func give(_ bytes: Int) {
        lock.withLock {
            inUse -= bytes
            lock.broadcast()
        }
    }
}

/// Why pixel memory was not given.
package enum RenderBudgetError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// Every byte is taken and the queue is full, or the wait timed out: try again later.
    case busy(waiting: Int, retryAfter: Int)
    /// More than the whole budget, in one piece.
    case tooLarge(bytes: Int, capacity: Int)

    package var description: String {
        switch self {
        case let .busy(waiting, retryAfter):
            "the server is busy rendering large images (\(waiting) waiting); retry in \(retryAfter) s"
        case let .tooLarge(bytes, capacity):
            "this request needs \(RenderBudgetError.megabytes(bytes)) MB of pixel memory at once; the render budget "
                + "is \(RenderBudgetError.megabytes(capacity)) MB (--render-memory-mb); ask for a smaller size or region"
        }
    }

    static func megabytes(_ bytes: Int) -> Int { (bytes + (1 << 20) - 1) >> 20 }
}
