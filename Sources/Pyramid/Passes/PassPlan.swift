import TileGeometry
/// Which pyramid levels one sequential decode of a master makes. Levels with a shrink of 8 or more come from a
/// decode at 1/8 (libjpeg's DCT scaling: the whole photo on screen for the cost of a scaled decode, "small
/// first"); the three levels above from one decode at full resolution. An image under 8 levels deep has one
/// full-resolution pass for all of them.
package struct PassPlan: Sendable, Hashable {
    /// The decode's shrink: 8 or 1.
    package let shrink: Int
    package let levels: ClosedRange<Int>

    /// The passes that together make every level of `geometry`, small first.
    static func plans(for geometry: PyramidGeometry) -> [PassPlan] {
        let top = geometry.maxLevel
        guard top >= 3 else { return [PassPlan(shrink: 1, levels: 0 ... top)] }
        return [PassPlan(shrink: 8, levels: 0 ... top - 3), PassPlan(shrink: 1, levels: top - 2 ... top)]
    }

    /// The pass that makes `level`.
    static func covering(_ level: Int, in geometry: PyramidGeometry) -> PassPlan {
        plans(for: geometry).first { $0.levels.contains(level) }!
    }

    /// Rows of the pass's decode that must be in before tile row `row` of `level` can be cut.
    func inputRows(toCut row: Int, ofLevel level: Int, in geometry: PyramidGeometry) -> Int {
        let factor = 1 << (levels.upperBound - level)
        let (_, height) = geometry.levelSize(levels.upperBound)
        return min(height, (row + 1) * geometry.tileSize * factor + geometry.overlap * factor)
    }

    /// What the metrics call this pass.
    package var name: String { shrink == 1 ? "full" : "1/\(shrink)" }
}
