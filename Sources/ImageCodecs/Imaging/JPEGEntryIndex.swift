import CImageIO
import POSIXSupport

/// Where decoding can enter one version of a baseline JPEG (`tsio_jidx_*`): every 256 pixels of every MCU
/// row, the bit its data starts at and the DC predictions there. A photo without restart markers can otherwise
/// only be entered at its top: a tile in the middle of a 640-megapixel master costs the entropy decode of every
/// row above it, paid again by every region decoded before the full pass reaches it. The index is built by one
/// scan of the symbols (no IDCT), extended only as far down as regions ask, and turns any block of MCUs into a
/// small JPEG libjpeg decodes to the same pixels as the whole file.
package final class JPEGEntryIndex: @unchecked Sendable {
    private let handle: OpaquePointer
    let path: String
    /// Where the file is read from.
    let files: ImageFiles
    /// What the index is kept under (`EntryIndexes.keptName`).
    let keptName: String
    /// Whether it has been handed to the keeper.
    private let kept = Locked(false)
    /// The frame's size as the index's own header parse read it.
    let frameWidth: Int
    let frameHeight: Int
    let mcuWidth: Int
    let mcuHeight: Int
    let columns: Int
    let rows: Int
    /// Memory held, for the store's budget.
    let bytes: Int
    /// Rows indexed so far, whether the data stopped making sense below them, and whether a 1/8 pass holds the
    /// scan (a region below it does not wait for a background pass: it is decoded the usual way).
    private let indexed = Locked((rows: 0, stopped: false, eighth: false))
    /// One scan at a time; extracts of indexed rows do not wait for it.
    private let scanning = Locked(())

    /// The store this index is kept in, whose counts its extracts and scans add to (weak: the store holds it).
    private weak var owner: EntryIndexes?

    init(handle: OpaquePointer, path: String, files: ImageFiles, keptName: String, owner: EntryIndexes) {
        self.handle = handle
        self.path = path
        self.files = files
        self.keptName = keptName
        self.owner = owner
        var fw: UInt32 = 0, fh: UInt32 = 0, w: UInt32 = 0, h: UInt32 = 0, c: UInt32 = 0, r: UInt32 = 0
        tsio_jidx_geometry(handle, &fw, &fh, &w, &h, &c, &r)
        frameWidth = Int(fw)
        frameHeight = Int(fh)
        mcuWidth = Int(w)
        mcuHeight = Int(h)
        columns = Int(c)
        rows = Int(r)
        bytes = tsio_jidx_bytes(handle)
    }

    deinit {
        tsio_jidx_close(handle)
    }

    /// The entries of a complete index, to keep; nil until the scan has reached the foot (after which nothing
    /// changes them, so no lock is needed).
    func exported() -> [UInt8]? {
        guard indexed.withLock({ $0.rows == rows && !$0.stopped }) else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard tsio_jidx_export(handle, &out, &size) == 0, let out else { return nil }
        defer { tsio_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// Takes kept entries instead of scanning (before any scan); false when they are not this file's.
    func adopt(_ bytes: [UInt8]) -> Bool {
        scanning.withLock { _ -> Bool in
            guard indexed.withLock({ $0.rows == 0 && !$0.stopped && !$0.eighth }) else { return false }
            var st = tsio_status()
            guard bytes.withUnsafeBufferPointer({ tsio_jidx_import(handle, $0.baseAddress, $0.count, &st) }) == 0 else { return false }
            indexed.withLock { $0 = (rows, false, false) }
            kept.withLock { $0 = true }
            return true
        }
    }

    /// Hands the index to the keeper the first time it is complete.
    private func keepIfComplete() {
        guard indexed.withLock({ $0.rows == rows && !$0.stopped }),
              kept.withLock({ done in defer { done = true }; return !done }) else { return }
        owner?.keep(self)
    }

    /// Makes sure MCU rows `0 ..< upTo` are indexed, scanning on from where the index stands; false when the
    /// data stops making sense above `upTo`, or while a 1/8 pass (at background priority) has not reached them
    /// (those rows must be decoded the usual way).
    func scan(upTo wanted: Int) throws -> Bool {
        let now = indexed.withLock { $0 }
        if now.rows >= wanted { return true }
        if now.eighth { return false }
        return try scanning.withLock { _ throws -> Bool in
            let now = indexed.withLock { $0 }
            if now.rows >= wanted { return true }
            if now.stopped { return false }
            let input = try files.open(path)
            var st = tsio_status()
            let done = input.withRaw { tsio_jidx_scan(handle, $0, UInt32(wanted), &st) }
            guard done >= 0 else { throw st.error(path: path, format: .jpeg, rows: rows) }
            indexed.withLock { $0 = (Int(done), Int(done) < wanted, false) }
            keepIfComplete()
            return Int(done) >= wanted
        }
    }

    /// A JPEG of MCU rows `rowRange` and columns `columnRange`, in memory owned by the caller (`tsio_free`);
    /// nil when the rows cannot be indexed.
    func extract(rows rowRange: Range<Int>, columns columnRange: Range<Int>) throws -> (UnsafeMutablePointer<UInt8>, Int)? {
        guard try scan(upTo: rowRange.upperBound) else { return nil }
        let input = try files.open(path)
        var st = tsio_status()
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var copied: UInt32 = 0
        guard input.withRaw({ tsio_jidx_extract(handle, $0, UInt32(rowRange.lowerBound), UInt32(rowRange.upperBound),
                                                UInt32(columnRange.lowerBound), UInt32(columnRange.upperBound), &out, &size,
                                                &copied, &st) }) == 0,
              let out else {
            throw st.error(path: path, format: .jpeg, rows: rows)
        }
        owner?.counted {
            $0.extracts += 1
            $0.rowsCopiedWhole += Int(copied)
        }
        return (out, size)
    }

    /// Runs `body` with the image at 1/8 made by the scan that builds this index, holding the scan all along: a
    /// master's thumbnail levels and its index then cost one pass over its entropy data. `rows` writes the next MCU
    /// row's rows at 1/8 (`perCall` at most; `tsio_jidx_eighth_row`). Extracts of rows already indexed go on
    /// meanwhile. Nil, without calling `body`, when the scan has begun or the file's sampling is not one the scan
    /// decodes (`ycc`: YCbCr components).
    func whileDecodingEighth<T>(ycc: Bool, _ body: (_ perCall: Int, _ rows: (UnsafeMutablePointer<UInt8>, Int) throws -> Int) throws -> T) throws -> T? {
        defer { keepIfComplete() }
        return try scanning.withLock { _ throws -> T? in
            guard indexed.withLock({ $0.rows == 0 && !$0.stopped }) else { return nil }
            var st = tsio_status()
            let perRow = tsio_jidx_eighth_begin(handle, ycc ? 1 : 0, &st)
            guard perRow >= 0 else { throw st.error(path: path, format: .jpeg, rows: 0) }
            guard perRow > 0 else { return nil }
            owner?.counted { $0.eighthsScanned += 1 }
            indexed.withLock { $0.eighth = true }
            defer { indexed.withLock { $0.eighth = false } }
            let input = try files.open(path)
            return try body(Int(perRow)) { dst, stride in
                var st = tsio_status()
                let n = input.withRaw { tsio_jidx_eighth_row(handle, $0, dst, stride, &st) }
                if n == -1 { throw st.error(path: path, format: .jpeg, rows: rows) }
                indexed.withLock {
                    if n > 0 { $0.rows += 1 }
                    if n == -2 { $0.stopped = true }
                }
                return Int(n)
            }
        }
    }

    /// MCU rows indexed so far (for tests).
    var indexedRows: Int { indexed.withLock { $0.rows } }
}
