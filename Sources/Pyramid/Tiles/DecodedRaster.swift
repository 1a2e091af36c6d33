import POSIXSupport

#if canImport(Glibc)
import Glibc
#endif

/// The pixels of one sequential decode pass of an image at one shrink, kept on disk, not in the heap.
///
/// JPEG and PNG are not random-access, so a full-resolution tile near the bottom of a photo costs an entropy
/// decode of everything above it. One pass decodes the image top to bottom once and stores it here as
/// 256 × 256 blocks (each block contiguous, so a tile is a few `pread`s); later tiles never decode the file
/// again. The backing file is an unlinked `O_TMPFILE`: nothing is left behind, whatever happens to the
/// process. Readers wait only until the rows they need are in, not for the whole pass.
final class DecodedRaster: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let channels: Int
    let shrink: Int
    let block = 256
    /// Bytes the backing file takes.
    let byteSize: Int

    private let fd: FileDescriptor
    private let columns: Int
    private let lock = ConditionLock()
    private var rowsDone = 0
    private var failure: (any Swift.Error)?
    private var finished = false

    /// Creates the backing file in `directory`; call `start(from:)` to run the pass.
    public init(width: Int, height: Int, channels: Int, shrink: Int, directory: String) throws {
        self.width = width
        self.height = height
        self.channels = channels
        self.shrink = shrink
        columns = (width + block - 1) / block
        byteSize = columns * ((height + block - 1) / block) * block * block * channels
        do {
            fd = try FileDescriptor(anonymousIn: directory)
        } catch {
            throw ImageSourceError.cannotOpen(path: directory, reason: "cannot create a raster file: \(error)")
        }
    }

    /// Runs the decode pass on its own thread. A source that must decode whole first (progressive JPEG,
    /// Adam7 PNG) holds a lease of that memory from `memory` for the whole pass, or fails naming the limit.
    public func start(from source: any ImageSource, memory: RenderBudget? = nil) {
        startDetachedThread { [self] in
            do {
                let whole = source.info.wholeDecodeBytes
                var lease: RenderBudget.Lease?
                if whole > 0, let memory {
                    do { lease = try memory.acquire(whole) } catch let error as RenderBudgetError {
                        guard case let .tooLarge(bytes, capacity) = error else { throw error } // busy: 503, try again
                        throw ImageSourceError.outOfMemory(path: source.path, message: Self.explain(bytes, capacity, source.info))
                    }
                }
                defer { lease?.release() }
                let rect = PixelRect(x: 0, y: 0, width: width, height: height)
                try source.decode(rect, shrink: shrink, bandRows: block) { band in
                    try store(band)
                    lock.withLock {
                        rowsDone = band.y + band.rows
                        lock.broadcast()
                    }
                }
                lock.withLock {
                    finished = true
                    lock.broadcast()
                }
            } catch {
                lock.withLock {
                    failure = error
                    lock.broadcast()
                }
            }
        }
    }

    private static func explain(_ bytes: Int, _ capacity: Int, _ info: ImageInfo) -> String {
        let kind = info.format == .png ? "an interlaced (Adam7) PNG" : "a progressive JPEG"
        return "\(kind) of \(info.width)×\(info.height) must be decoded whole, which takes \(RenderBudgetError.megabytes(bytes)) MB; "
            + "the render budget is \(RenderBudgetError.megabytes(capacity)) MB (--render-memory-mb): raise it, or save the "
            + "image \(info.format == .png ? "without interlacing" : "as baseline JPEG")"
    }

    var isComplete: Bool { lock.withLock { finished } }
    var hasFailed: Bool { lock.withLock { failure != nil } }
    var progress: Int { lock.withLock { rowsDone } }

    /// Blocks until rows `0 ..< rows` are stored, or throws the error that stopped the pass.
    func waitForRows(_ rows: Int) throws {
        try lock.withLock {
            while rowsDone < rows {
                if let failure { throw failure }
                lock.wait()
            }
        }
    }

    /// The pixels of `rect`, waiting for the pass to reach its last row.
    public func read(_ rect: PixelRect) throws -> PixelBuffer {
        precondition(rect.fits(width: width, height: height), "raster read \(rect) outside \(width)×\(height)")
        try waitForRows(rect.maxY)
        var out = PixelBuffer(width: rect.width, height: rect.height, channels: channels)
        let blockRow = block * channels
        var scratch = [UInt8](repeating: 0, count: block * blockRow)
        for by in rect.y / block ... (rect.maxY - 1) / block {
            let ry0 = max(rect.y, by * block) - by * block
            let ry1 = min(rect.maxY, (by + 1) * block) - by * block
            for bx in rect.x / block ... (rect.maxX - 1) / block {
                let offset = ((by * columns + bx) * block + ry0) * blockRow
                let count = (ry1 - ry0) * blockRow
                try scratch.withUnsafeMutableBytes { buf in
                    try readFully(buf.baseAddress!, count: count, at: offset)
                }
                let cx0 = max(rect.x, bx * block), cx1 = min(rect.maxX, (bx + 1) * block)
                let rowLength = (cx1 - cx0) * channels
                out.bytes.withUnsafeMutableBufferPointer { dst in
                    scratch.withUnsafeBufferPointer { src in
                        for r in 0 ..< ry1 - ry0 {
                            let from = src.baseAddress! + r * blockRow + (cx0 - bx * block) * channels
                            let to = dst.baseAddress! + ((by * block + ry0 + r - rect.y) * rect.width + (cx0 - rect.x)) * channels
                            to.update(from: from, count: rowLength)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Cuts a band of rows into blocks and writes each with one `pwrite`.
    private func store(_ band: PixelBand) throws {
        precondition(band.y % block == 0, "bands must start on block rows")
        let blockRow = block * channels
        var buffer = [UInt8](repeating: 0, count: block * blockRow)
        let by = band.y / block
        for bx in 0 ..< columns {
            let x0 = bx * block, x1 = min(width, x0 + block)
            buffer.withUnsafeMutableBufferPointer { dst in
                for r in 0 ..< band.rows {
                    let from = band.bytes.baseAddress! + (r * width + x0) * channels
                    (dst.baseAddress! + r * blockRow).update(from: from, count: (x1 - x0) * channels)
                }
            }
            try buffer.withUnsafeBytes { buf in
                try writeFully(buf.baseAddress!, count: band.rows * blockRow, at: (by * columns + bx) * block * blockRow)
            }
        }
    }

    private func writeFully(_ pointer: UnsafeRawPointer, count: Int, at offset: Int) throws {
        var done = 0
        while done < count {
            let n = try syscall("pwrite(raster)") { pwrite(fd.rawValue, pointer + done, count - done, off_t(offset + done)) }
            done += n
        }
    }

    private func readFully(_ pointer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws {
        var done = 0
        while done < count {
            let n = try syscall("pread(raster)") { pread(fd.rawValue, pointer + done, count - done, off_t(offset + done)) }
            if n == 0 { throw SyscallError(call: "pread(raster): unexpected end", errno: EIO) }
            done += n
        }
    }
}
