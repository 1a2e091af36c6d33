/// The pools deferred work runs on, one per `WorkLane`.
package final class WorkerPools: Sendable {
    /// Decoding, resampling and encoding: as many threads as cores.
    package let render: WorkerPool
    /// Headers, listings and documents: work that mostly waits on files, kept apart so it never queues behind renders.
    package let io: WorkerPool

    package init(renderThreads: Int, ioThreads: Int, lowPriorityLimit: Int) {
        render = WorkerPool(threads: renderThreads, lowPriorityLimit: lowPriorityLimit)
        io = WorkerPool(threads: ioThreads, lowPriorityLimit: 0)
    }

    func pool(for lane: WorkLane) -> WorkerPool {
        switch lane {
        case .render: render
        case .io: io
        }
    }
}
