import POSIXSupport
import Synchronization

/// Looks at image files on one background thread, for answers that must not touch a file themselves (the fast
/// tile path on an event loop): an image whose last look is due is queued here, and its `lookAtFile()` runs the
/// `stat` while the answers go on from the version in hand (a changed file is opened again by the next answer). Queuing allocates
/// nothing: the queue's buffers are made once, and an image is queued at most once at a time.
final class FileChecks: @unchecked Sendable {
    private static let capacity = 1024
    private let lock = ConditionLock()
    private var queue: [PyramidImage] = []
    private var spare: [PyramidImage] = []
    private let started = Atomic<Bool>(false)

    /// Its thread starts on the first request.
    init() {
        queue.reserveCapacity(Self.capacity)
        spare.reserveCapacity(Self.capacity)
    }

    /// Queues a look at `image`'s file unless one is queued already (or the queue is full: a later answer asks
    /// again). Returns at once.
    func request(_ image: PyramidImage) {
        guard image.checkQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        if !started.load(ordering: .acquiring), started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            startDetachedThread { [self] in run() }
        }
        let queued = lock.withLock { () -> Bool in
            guard queue.count < Self.capacity else { return false }
            queue.append(image)
            lock.broadcast()
            return true
        }
        if !queued { image.checkQueued.store(false, ordering: .releasing) }
    }

    private func run() {
        while true {
            var batch = lock.withLock { () -> [PyramidImage] in
                while queue.isEmpty { lock.wait() }
                swap(&queue, &spare)
                defer { spare = [] }
                return spare
            }
            for image in batch {
                image.lookAtFile()
                image.checkQueued.store(false, ordering: .releasing)
            }
            batch.removeAll(keepingCapacity: true)
            lock.withLock { spare = batch }
        }
    }
}
