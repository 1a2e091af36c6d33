/// The rows of a format whose library decodes a picture whole (WebP, HEIF, AVIF): `decode` fills the buffer on the
/// first read (all of it, or it throws: a library that gave less than the picture is an error, never a
/// half-filled buffer), then rows are handed out from it.
final class WholeImageRowReader: StoredRowReader {
    typealias Decode = (_ dst: UnsafeMutablePointer<UInt8>, _ stride: Int, _ channels: Int) throws -> Void

    let path: String
    let format: SourceFormat
    let rowWidth: Int
    let wantedOffset: Int
    let channels: Int
    let height: Int
    private let decode: Decode
    private var pixels: [UInt8] = []
    private var next = 0

    /// `columnsFrom`: the first column of the wanted range (rows are whole).
    init(path: String, format: SourceFormat, width: Int, height: Int, channels: Int, columnsFrom: Int,
         decode: @escaping Decode) throws {
        self.path = path
        wantedOffset = columnsFrom
        self.format = format
        rowWidth = width
        self.height = height
        self.channels = channels
        self.decode = decode
    }

    private func decoded() throws {
        guard pixels.isEmpty else { return }
        var buffer = [UInt8](repeating: 0, count: rowWidth * height * channels)
        try buffer.withUnsafeMutableBufferPointer { try decode($0.baseAddress!, rowWidth * channels, channels) }
        pixels = buffer
    }

    func skip(_ rows: Int) throws {
        next = min(height, next + rows)
    }

    func read(into dst: UnsafeMutablePointer<UInt8>, stride: Int, rows: Int) throws -> Int {
        try decoded()
        let n = min(rows, height - next), rowBytes = rowWidth * channels
        pixels.withUnsafeBufferPointer { src in
            for k in 0 ..< n { (dst + k * stride).update(from: src.baseAddress! + (next + k) * rowBytes, count: rowBytes) }
        }
        next += n
        return n
    }
}
