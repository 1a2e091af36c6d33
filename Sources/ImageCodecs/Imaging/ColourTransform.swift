import CImageIO
import POSIXSupport

/// A conversion of decoded rows from the colour space an embedded ICC profile describes to sRGB (lcms2, behind
/// `tsio_icc_*`). One per distinct profile and pixel layout, shared by every decode of every image that carries
/// it: what is sent, stored and built is sRGB, and untagged images never meet one.
final class ColourTransform: @unchecked Sendable {
    let handle: OpaquePointer

    /// How the decoders hand pixels over, for the transform's input.
    enum Layout: Int32, Sendable {
        case rgb = 1, rgba = 2, grayInRGB = 3, cmyk = 4, cmykInverted = 5
    }

    /// How a decoder's pixels meet `profile`: CMYK as it is stored, RGBA with alpha, gray spread over RGB
    /// read as gray only when the profile is a gray one (a gray file with an RGB profile converts as RGB; a
    /// colour file with a gray profile is refused by the transform).
    static func layout(for profile: [UInt8], channels: Int, grayPixels: Bool, cmyk: Bool, inverted: Bool) -> Layout {
        if cmyk { return inverted ? .cmykInverted : .cmyk }
        if channels == 4 { return .rgba }
        let grayProfile = profile.count >= 20 && Array(profile[16 ..< 20]) == Array("GRAY".utf8)
        return grayPixels && grayProfile ? .grayInRGB : .rgb
    }

    /// Adobe RGB (1998), made once, for files whose EXIF says so without carrying a profile.
    static let adobeRGB: [UInt8]? = ColourTransform.profile { tsio_icc_adobe_rgb(&$0, &$1) }

    /// What a file's profile came to: a transform, or the reason it was ignored (the image is then shown as
    /// untagged, and every decode reports the reason as a warning).
    enum Outcome: Sendable {
        case convert(ColourTransform)
        case ignored(String)
        /// A sound RGB profile left unconverted (`--colour keep`): outputs embed it.
        case keep([UInt8])
    }

    /// `outcome(for:layout:wide:)`, or with `keeping` the profile itself for encoders to embed, when it is a sound
    /// RGB profile: gray and CMYK files are converted whatever the setting, since they leave as RGB pixels, which
    /// their profile cannot describe.
    static func outcome(for profile: [UInt8], layout: Layout, wide: Bool = false, keeping: Bool) -> Outcome {
        let made = outcome(for: profile, layout: layout, wide: wide)
        if keeping, case .convert = made, layout == .rgb || layout == .rgba { return .keep(profile) }
        return made
    }

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        tsio_icc_close(handle)
    }

    /// Transforms made so far, by profile and layout; a bounded number stay (a library rarely holds more than
    /// a handful of distinct profiles, and a dropped one is made again from the next file that carries it).
    private static let made = LRUCache<String, Outcome>(budget: 64, cost: { _ in 1 })

    /// The conversion for `profile` on pixels laid out as `layout`, with 16-bit samples when `wide` (a 16-bit
    /// PNG's, converted before they are rounded to 8 bits).
    static func outcome(for profile: [UInt8], layout: Layout, wide: Bool = false) -> Outcome {
        let flags = layout.rawValue | (wide ? Int32(TSIO_ICC_WIDE) : 0)
        let key = "\(flags)/\(profile.count)/\(FNV1a(profile).value)"
        if let known = made.value(for: key) { return known }
        var st = tsio_status()
        let handle = profile.withUnsafeBufferPointer { tsio_icc_open($0.baseAddress, $0.count, flags, &st) }
        let outcome: Outcome = handle.map { .convert(ColourTransform(handle: $0)) }
            ?? .ignored("embedded ICC profile ignored (\(st.messageText)); colours shown as sRGB")
        made.insert(outcome, for: key)
        return outcome
    }
}

extension ColourTransform {
    /// The profile a `tsio_jpeg_icc_profile` or `tsio_png_icc_profile` call hands over (its buffer freed here).
    static func profile(_ read: (inout UnsafeMutablePointer<UInt8>?, inout Int) -> Int32) -> [UInt8]? {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard read(&bytes, &size) != 0, let bytes else { return nil }
        defer { tsio_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}

extension Optional where Wrapped == ColourTransform.Outcome {
    /// Hands the transform to a decoder through `attach` (the caller holds the returned transform while the
    /// decoder uses it), or notes in `warnings` why the profile was ignored; nothing for an untagged file.
    func attach(_ attach: (OpaquePointer) -> Void, warnings: inout DecodeWarnings) -> ColourTransform? {
        switch self {
        case let .convert(transform)?:
            attach(transform.handle)
            return transform
        case let .ignored(reason)?:
            warnings.merge(count: 1, message: reason)
            return nil
        case .keep?, nil:
            return nil
        }
    }

    /// The profile outputs embed: the kept one, nil when outputs are sRGB.
    var keptProfile: [UInt8]? {
        if case let .keep(profile)? = self { return profile }
        return nil
    }
}

extension ColourTransform {
    /// `band` converted by `transform` (a copy: the band's memory is the reader's), handed to `body`; the band
    /// itself when there is no transform.
    static func applying(_ transform: ColourTransform?, to band: PixelBand, _ body: (PixelBand) throws -> Void) throws {
        guard let transform else { return try body(band) }
        var pixels = Array(band.bytes)
        pixels.withUnsafeMutableBufferPointer { tsio_icc_apply(transform.handle, $0.baseAddress, $0.baseAddress, band.width * band.rows) }
        try pixels.withUnsafeBufferPointer {
            try body(PixelBand(y: band.y, rows: band.rows, width: band.width, channels: band.channels, bytes: $0))
        }
    }
}
