import CImageIO
import POSIXSupport

/// One libtiff handle on its own descriptor (`tsio_tiff_*`), used by one thread at a time. It remembers which
/// directory it has selected and keeps its last decoded tile, so reads of one level in order decode each tile once.
final class TIFFHandle {
    let input: ImageInput
    let raw: OpaquePointer
    private(set) var selected: UInt64 = 0

    init(path: String, input: ImageInput) throws {
        var st = tsio_status()
        guard let raw = input.withRaw({ tsio_tiff_open($0, &st) }) else { throw st.error(path: path, format: .tiff, rows: 0) }
        self.input = input
        self.raw = raw
    }

    deinit {
        tsio_tiff_close(raw)
    }

    /// Makes the directory at `offset` the one reads come from (no work when it already is).
    func select(_ offset: UInt64, path: String) throws {
        guard selected != offset else { return }
        var st = tsio_status()
        var dir = tsio_tiff_dir()
        guard tsio_tiff_select(raw, offset, &dir, &st) == 0 else { throw st.error(path: path, format: .tiff, rows: 0) }
        selected = offset
    }

    /// Every directory: the main chain, then the first page's SubIFDs.
    func directories(path: String, warnings: inout DecodeWarnings) throws -> [tsio_tiff_dir] {
        var st = tsio_status()
        var dirs = [tsio_tiff_dir](repeating: tsio_tiff_dir(), count: Int(TSIO_TIFF_MAX_DIRS))
        let n = dirs.withUnsafeMutableBufferPointer { tsio_tiff_directories(raw, $0.baseAddress, Int32($0.count), &st) }
        guard n >= 1 else { throw st.error(path: path, format: .tiff, rows: 0) }
        warnings.note(st)
        selected = 0
        return Array(dirs.prefix(Int(n)))
    }
}

/// The idle handles of one TIFF source. Opening a handle reads a directory (with strip and tile offsets loaded on
/// demand, a BigTIFF of a million tiles opens in microseconds), so a few are kept for the next reads, the ones
/// already on the wanted level first.
final class TIFFHandles: Sendable {
    let path: String
    private let files: ImageFiles
    private let idle: Locked<[TIFFHandle]>
    /// Idle handles kept; more are opened while more threads read at once, and closed when they are done.
    static let kept = 8

    init(path: String, first: TIFFHandle) {
        self.path = path
        files = first.input.files
        idle = Locked([first])
    }

    /// Runs `body` with a handle on the directory at `offset`, taken from the idle ones or opened.
    func with<Result>(_ offset: UInt64, _ body: (TIFFHandle) throws -> Result) throws -> Result {
        let taken = idle.withLock { handles -> TIFFHandle? in
            guard let at = handles.lastIndex(where: { $0.selected == offset }) ?? (handles.isEmpty ? nil : handles.count - 1)
            else { return nil }
            return handles.remove(at: at)
        }
        let handle = try taken ?? TIFFHandle(path: path, input: files.open(path))
        try handle.select(offset, path: path)
        let result = try body(handle)
        idle.withLock { handles in
            if handles.count < Self.kept { handles.append(handle) }
        }
        return result
    }
}
