import CImageIO

/// The rows of a JPEG at 1/8 as the entry index's scan makes them (`JPEGEntryIndex.whileDecodingEighth`), the same
/// pixels as libjpeg's decode at 1/8. Where the entropy data stops making sense the scan stops too, and the rest
/// comes from libjpeg (`fallback`), which decodes a damaged file its own way.
final class JPEGEighthReader: StoredRowReader {
    let path: String
    let format = SourceFormat.jpeg
    /// Rows are the image's whole width at 1/8; the wanted columns start at `wantedOffset`.
    let rowWidth: Int
    let wantedOffset: Int
    let channels = 3
    /// What the colour conversion said, and what libjpeg met after taking over.
    var warnings: DecodeWarnings {
        var all = own
        if let fallback { all.merge(count: fallback.warnings.count, message: fallback.warnings.first ?? "") }
        return all
    }
    private var own = DecodeWarnings()
    private let next: (UnsafeMutablePointer<UInt8>, Int) throws -> Int
    private let transform: ColourTransform?
    private let makeFallback: () throws -> JPEGRowReader
    private var fallback: JPEGRowReader?
    /// One MCU row's rows at 1/8, and how many of them are read.
    private var rows: [UInt8]
    private var buffered = 0
    private var taken = 0
    /// Rows handed out so far.
    private var delivered = 0

    init(path: String, width: Int, wantedOffset: Int, rowsPerCall: Int, colour: ColourTransform.Outcome?,
         next: @escaping (UnsafeMutablePointer<UInt8>, Int) throws -> Int, fallback: @escaping () throws -> JPEGRowReader) {
        self.path = path
        self.rowWidth = width
        self.wantedOffset = wantedOffset
        self.next = next
        self.makeFallback = fallback
        rows = [UInt8](repeating: 0, count: width * 3 * rowsPerCall)
        transform = colour.attach({ _ in }, warnings: &own)
    }

    func skip(_ count: Int) throws {
        var scratch = [UInt8](repeating: 0, count: rowWidth * 3)
        var left = count
        while left > 0 {
            let n = try scratch.withUnsafeMutableBufferPointer { try read(into: $0.baseAddress!, stride: 0, rows: 1) }
            if n == 0 { break }
            left -= n
        }
    }

    func read(into dst: UnsafeMutablePointer<UInt8>, stride: Int, rows wanted: Int) throws -> Int {
        let rowBytes = rowWidth * 3
        if let fallback {
            let n = try fallback.read(into: dst, stride: stride, rows: wanted)
            delivered += n
            return n
        }
        if taken == buffered {
            let n = try rows.withUnsafeMutableBufferPointer { try next($0.baseAddress!, rowBytes) }
            if n == -2 {
                // The data stops making sense here: libjpeg decodes the rest (and says what it met).
                let reader = try makeFallback()
                try reader.skip(delivered)
                fallback = reader
                let got = try reader.read(into: dst, stride: stride, rows: wanted)
                delivered += got
                return got
            }
            if n == 0 { return 0 }
            buffered = n
            taken = 0
            if let transform {
                rows.withUnsafeMutableBufferPointer { buf in
                    for r in 0 ..< n {
                        let row = buf.baseAddress! + r * rowBytes
                        tsio_icc_apply(transform.handle, row, row, rowWidth)
                    }
                }
            }
        }
        let n = min(wanted, buffered - taken)
        rows.withUnsafeBufferPointer { buf in
            for r in 0 ..< n {
                (dst + r * stride).update(from: buf.baseAddress! + (taken + r) * rowBytes, count: rowBytes)
            }
        }
        taken += n
        delivered += n
        return n
    }
}
