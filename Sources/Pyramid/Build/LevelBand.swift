import ImageCodecs
/// The rows of one pyramid level that are still needed while a build streams through the image: it cuts
/// tile rows as soon as their last row (plus overlap) has arrived and hands every pair of rows, averaged
/// 2 × 2, to the level below. A band may hold a window of the level: columns from `originX` and rows from
/// `originRow` (a tile row's first), with `height` the absolute row where the window ends.
struct LevelBand {
    let level: Int
    /// Pixels a row holds (the window's width).
    let width: Int
    let height: Int
    /// Level column of the rows' first pixel.
    let originX: Int
    let channels: Int
    let tileSize: Int
    let overlap: Int
    /// Rows `firstRow ..< firstRow + rowCount` are held in `rows`.
    private(set) var firstRow = 0
    private var rows: [UInt8] = []
    private var rowCount: Int { rows.count / rowBytes }
    private(set) var received = 0
    private(set) var nextTileRow = 0
    /// An even row waiting for its partner before going down a level.
    private var pendingPair: [UInt8]?

    init(level: Int, width: Int, height: Int, channels: Int, tileSize: Int, overlap: Int, originX: Int = 0, originRow: Int = 0) {
        self.level = level
        self.width = width
        self.height = height
        self.originX = originX
        firstRow = originRow
        received = originRow
        nextTileRow = originRow / tileSize
        self.channels = channels
        self.tileSize = tileSize
        self.overlap = overlap
        rows.reserveCapacity((tileSize + 2 * overlap + 2) * width * channels)
    }

    var rowBytes: Int { width * channels }

    /// Appends one row; returns the 2 × 2 average row for the level below when a pair is complete (or when
    /// the last row of an odd height arrives alone).
    mutating func append(_ row: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        rows.append(contentsOf: row)
        received += 1
        guard level > 0 else { return nil }
        if let first = pendingPair {
            pendingPair = nil
            return first.withUnsafeBufferPointer { RowHalving.halve($0, row, width: width, channels: channels) }
        }
        if received == height {
            return RowHalving.halve(row, nil, width: width, channels: channels)
        }
        pendingPair = Array(row)
        return nil
    }

    /// Tile rows whose pixels are all here, as (row index, rectangle in level pixels) — call `drop` after
    /// cutting each.
    var readyTileRow: Int? {
        let rowsOfTiles = (height + tileSize - 1) / tileSize
        guard nextTileRow < rowsOfTiles else { return nil }
        let needed = min(height, (nextTileRow + 1) * tileSize + overlap)
        return received >= needed ? nextTileRow : nil
    }

    /// The pixels of `rect` (level coordinates), which must be held.
    func crop(_ rect: PixelRect) -> PixelBuffer {
        var out = [UInt8](repeating: 0, count: rect.area * channels)
        let length = rect.width * channels
        rows.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for r in 0 ..< rect.height {
                    let from = src.baseAddress! + (rect.y + r - firstRow) * rowBytes + (rect.x - originX) * channels
                    (dst.baseAddress! + r * length).update(from: from, count: length)
                }
            }
        }
        return PixelBuffer(width: rect.width, height: rect.height, channels: channels, bytes: out)
    }

    /// Forgets rows no later tile row needs.
    mutating func finishTileRow() {
        nextTileRow += 1
        let keepFrom = max(0, nextTileRow * tileSize - overlap)
        let drop = min(rowCount, keepFrom - firstRow)
        if drop > 0 {
            rows.removeFirst(drop * rowBytes)
            firstRow += drop
        }
    }
}
