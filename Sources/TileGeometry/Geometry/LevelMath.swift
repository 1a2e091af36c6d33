/// DeepZoom level arithmetic shared by the geometry types.
package enum LevelMath {
    /// `ceil(log2(max(width, height)))`: the full-resolution level; 0 for a 1 × 1 image.
    package static func maxLevel(width: Int, height: Int) -> Int {
        let longest = max(width, height)
        guard longest > 1 else { return 0 }
        return Int.bitWidth - (longest - 1).leadingZeroBitCount
    }

    /// `ceil(size / 2^shift)`, halving with rounding up as libvips does.
    static func shrunk(_ size: Int, by shift: Int) -> Int {
        guard shift > 0 else { return size }
        guard shift < Int.bitWidth - 1 else { return 1 }
        return (size + (1 << shift) - 1) >> shift
    }
}
