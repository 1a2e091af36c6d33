/// How the one quality setting (`--quality`, IIIF and view images, `build --quality`), which reads as JPEG's, is
/// given to libwebp. WebP's scale is not JPEG's: the same number gives a different look. The table maps JPEG qualities
/// to the WebP quality whose tiles of a real photo reach the same mean SSIM (`bench/webp.py` on a 5,640 × 3,172
/// photo: 75 → 73, 85 → 81, 92 → 88, at 0.81, 0.78 and 0.77 of the JPEG bytes); between the points it is linear.
package enum WebPQuality {
    /// libwebp's effort, 0…6: 4 is its default (6 gave 1 % fewer bytes at the same SSIM; its time was not measured).
    static let method = 4

    /// (JPEG quality, WebP quality of the same SSIM).
    static let table = QualityTable(points: [(0, 0), (75, 73), (85, 81), (92, 88), (100, 100)])

    /// The WebP quality with the SSIM of JPEG at `quality`.
    package static func webp(forJPEG quality: Int) -> Int { table.map(quality) }
}
