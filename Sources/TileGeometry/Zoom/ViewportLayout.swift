/// A tile on screen: where it is in the pyramid and where it lands in the view, in screen pixels.
public struct VisibleTile: Hashable, Sendable {
    public var tile: TileCoordinate
    public var screen: ViewRect
}

/// Everything a client needs to draw one view: the clamped zoom, its level, what is visible, where, and
/// which tiles to fetch now and next.
public struct ViewportLayout: Hashable, Sendable {
    package var zoom: Double
    /// True when `zoom` is the fit zoom exactly: the state clients compare, never the float.
    package var isFit: Bool
    package var minZoom: Double
    package var maxZoom: Double
    package var level: Int
    package var levelScale: Double
    package var tileSize: Int
    /// Visible part of the image, in image pixels.
    package var visible: ViewRect
    package var inset: EdgeInsets
    public var tiles: [VisibleTile]
    /// One ring of tiles around the visible ones at the same level, then the visible area one level up.
    package var prefetch: [TileCoordinate]

    /// Centre of the visible rectangle, in image pixels (after clamping at the edges).
    package var center: (x: Double, y: Double) { (visible.midX, visible.midY) }
}

extension ScrollViewModel {
    /// The view at `request` centred on (cx, cy) (default: the image centre).
    package func layout(zoom request: ZoomRequest, centerX: Double? = nil, centerY: Double? = nil) -> ViewportLayout {
        layout(zoom: zoom(for: request), centerX: centerX ?? imageCenter.x, centerY: centerY ?? imageCenter.y)
    }

    /// The view at an already clamped `zoom`.
    func layout(zoom: Double, centerX: Double, centerY: Double) -> ViewportLayout {
        let visible = visibleRect(zoom: zoom, centerX: centerX, centerY: centerY)
        let inset = insets(zoom: zoom)
        let level = level(forZoom: zoom)
        let shrink = Double(geometry.shrink(ofLevel: level))
        let (cells, columns, rows) = tileRange(level: level, visible: visible)
        var tiles: [VisibleTile] = []
        for y in cells.rows { for x in cells.columns {
            let tile = TileCoordinate(level: level, x: x, y: y)
            let size = Double(geometry.tileSize) * shrink
            let imageX = Double(x) * size, imageY = Double(y) * size
            let w = Swift.min(imageWidth, imageX + size) - imageX
            let h = Swift.min(imageHeight, imageY + size) - imageY
            tiles.append(VisibleTile(tile: tile, screen: ViewRect(
                x: inset.left + (imageX - visible.x) * zoom, y: inset.top + (imageY - visible.y) * zoom,
                width: w * zoom, height: h * zoom)))
        } }
        var prefetch: [TileCoordinate] = []
        let ringColumns = Swift.max(0, cells.columns.lowerBound - 1) ... Swift.min(columns - 1, cells.columns.upperBound + 1)
        let ringRows = Swift.max(0, cells.rows.lowerBound - 1) ... Swift.min(rows - 1, cells.rows.upperBound + 1)
        for y in ringRows { for x in ringColumns where !(cells.columns.contains(x) && cells.rows.contains(y)) {
            prefetch.append(TileCoordinate(level: level, x: x, y: y))
        } }
        if level < levelCap ?? geometry.maxLevel {
            let next = tileRange(level: level + 1, visible: visible).cells
            for y in next.rows { for x in next.columns { prefetch.append(TileCoordinate(level: level + 1, x: x, y: y)) } }
        }
        return ViewportLayout(zoom: zoom, isFit: isFit(zoom), minZoom: minZoom, maxZoom: maxZoom, level: level,
                              levelScale: 1 / shrink, tileSize: geometry.tileSize, visible: visible, inset: inset,
                              tiles: tiles, prefetch: prefetch)
    }

    /// Columns and rows of `level` whose cells meet `visible` (image pixels), and the level's grid size.
    private func tileRange(level: Int, visible: ViewRect) -> (cells: (columns: ClosedRange<Int>, rows: ClosedRange<Int>), columns: Int, rows: Int) {
        let (columns, rows) = geometry.tileCount(level)
        let cell = Double(geometry.tileSize * geometry.shrink(ofLevel: level))
        let c0 = Swift.max(0, Int((visible.x / cell).rounded(.down)))
        let c1 = Swift.min(columns - 1, Int(((visible.x + visible.width) / cell).rounded(.up)) - 1)
        let r0 = Swift.max(0, Int((visible.y / cell).rounded(.down)))
        let r1 = Swift.min(rows - 1, Int(((visible.y + visible.height) / cell).rounded(.up)) - 1)
        return ((c0 ... Swift.max(c0, c1), r0 ... Swift.max(r0, r1)), columns, rows)
    }
}
