/// How the one quality setting (`--quality`, which reads as JPEG's) is given to the AVIF encoder (libheif's libaom
/// plugin, 0…100). AV1's scale is not JPEG's: the table maps JPEG qualities to the lowest AVIF quality whose tiles of
/// a real photo reach the same mean luma SSIM (`bench/avif.py`: bisected over 0…100 on 42 tiles of the two deepest
/// levels of the 5,640 × 3,172 photo: 75 → 55, 85 → 63, 92 → 77, at 0.65, 0.64 and 0.66 of the JPEG bytes); between
/// the points it is linear.
package enum AVIFQuality {
    /// libaom's speed through libheif, 0 (smallest) … 9 (fastest): libheif's default; speed 4 saved 0.3 % of the
    /// bytes of the one tile tried. A 256 px tile takes about 28 ms of CPU at 6 (`tileserver build`, decode included).
    static let speed = 6

    /// (JPEG quality, AVIF quality of the same SSIM).
    static let table = QualityTable(points: [(0, 0), (75, 55), (85, 63), (92, 77), (100, 100)])

    /// The AVIF quality with the SSIM of JPEG at `quality`.
    package static func avif(forJPEG quality: Int) -> Int { table.map(quality) }
}
