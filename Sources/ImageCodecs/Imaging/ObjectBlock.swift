/// A block of an object held in memory (`RemoteFile.blocks`): bytes received straight into it from the store
/// (`ObjectBytes.read(of:offset:into:version:)`), never written once it is shared.
final class ObjectBlock: @unchecked Sendable {
    private let memory: UnsafeMutableRawPointer
    let capacity: Int
    /// Bytes it holds, set once as it is filled.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        memory = UnsafeMutableRawPointer.allocate(byteCount: max(1, capacity), alignment: 16)
    }

    deinit {
        memory.deallocate()
    }

    /// Where it is filled, before anyone else sees it.
    var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: memory, count: capacity) }

    /// Notes that its first `count` bytes are filled.
    func filled(_ count: Int) {
        self.count = min(capacity, count)
    }

    /// Its bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: memory, count: count) }
}
