/// The fields of an EXIF block that `PhotoMetadata` holds: IFD0 (description, make, model, artist, copyright),
/// the EXIF IFD (exposure, aperture, ISO, focal length, lens, date taken with its offset) and the GPS IFD.
enum EXIFFields {
    static func read(_ block: [UInt8]) -> PhotoMetadata {
        var m = PhotoMetadata()
        guard let ifd0 = TIFFDirectory(block: block) else { return m }
        m.description = ifd0.text(0x010E)
        m.make = ifd0.text(0x010F)
        m.model = ifd0.text(0x0110)
        m.creators = ifd0.text(0x013B).map { [$0] } ?? []
        m.copyright = ifd0.text(0x8298)
        if let exif = ifd0.subdirectory(0x8769) {
            if let t = exif.rational(0x829A), t.numerator > 0 { m.exposureTime = exposure(t.numerator / t.denominator) }
            m.fNumber = exif.number(0x829D).flatMap(positive)
            m.iso = exif.integer(0x8827).flatMap { $0 > 0 ? $0 : nil }
            m.focalLength = exif.number(0x920A).flatMap(positive)
            m.lens = exif.text(0xA434)
            m.dateTaken = exif.text(0x9003).flatMap { date($0, offset: exif.text(0x9011)) }
        }
        if m.dateTaken == nil { m.dateTaken = ifd0.text(0x0132).flatMap { date($0, offset: nil) } }
        m.location = ifd0.subdirectory(0x8825).flatMap(location)
        m.millimetresPerPixel = millimetresPerPixel(ifd0, camera: m.exposureTime != nil || m.fNumber != nil)
        return m
    }

    /// IFD0's XResolution in real units as millimetres per pixel, by `ImageInfo.millimetresPerPixel`'s rules, and in
    /// inches only for a file that is not a camera's photo (no exposure or aperture: a scan, a microscope's image):
    /// a camera's 300 dpi is a print size, not what a pixel of a landscape measures. No unit: nothing.
    static func millimetresPerPixel(_ ifd0: TIFFDirectory, camera: Bool) -> Double? {
        guard let unit = ifd0.integer(0x0128), let dpu = ifd0.number(0x011A), !camera || unit == 3 else { return nil }
        return ImageInfo.millimetresPerPixel(unit: unit, resolution: dpu)
    }

    private static func positive(_ value: Double) -> Double? { value > 0 && value.isFinite ? value : nil }

    /// `1/250` below a second, else seconds (`2`, `1.3`).
    static func exposure(_ seconds: Double) -> String? {
        guard seconds > 0, seconds.isFinite, seconds < 100_000 else { return nil }
        if seconds < 1 {
            let denominator = (1 / seconds).rounded()
            return "1/\(Int(denominator))"
        }
        let tenths = (seconds * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }

    /// EXIF `YYYY:MM:DD hh:mm:ss` (and an offset `+hh:mm`) as ISO 8601; nil for anything else, or a zeroed date.
    static func date(_ text: String, offset: String?) -> String? {
        let b = Array(text.utf8)
        guard b.count >= 19 else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digits.allSatisfy({ (48 ... 57).contains(b[$0]) }), b[4] == 58, b[7] == 58, b[10] == 32 || b[10] == 84,
              b[13] == 58, b[16] == 58 else { return nil }
        let number = { (at: Int, n: Int) in b[at ..< at + n].reduce(0) { $0 * 10 + Int($1 - 48) } }
        guard number(0, 4) > 0, (1 ... 12).contains(number(5, 2)), (1 ... 31).contains(number(8, 2)),
              number(11, 2) < 24, number(14, 2) < 60, number(17, 2) < 61 else { return nil }
        let day = String(decoding: b[0 ..< 4], as: UTF8.self) + "-" + String(decoding: b[5 ..< 7], as: UTF8.self) + "-"
            + String(decoding: b[8 ..< 10], as: UTF8.self)
        let time = String(decoding: b[11 ..< 19], as: UTF8.self)
        return day + "T" + time + (offset.flatMap(utcOffset) ?? "")
    }

    /// `+hh:mm` or `-hh:mm`, checked.
    static func utcOffset(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 6, b[0] == 43 || b[0] == 45, b[3] == 58,
              [1, 2, 4, 5].allSatisfy({ (48 ... 57).contains(b[$0]) }),
              Int(b[1] - 48) * 10 + Int(b[2] - 48) <= 14, Int(b[4] - 48) * 10 + Int(b[5] - 48) < 60 else { return nil }
        return text
    }

    /// Degrees from the GPS IFD's degree/minute/second rationals and N/S, E/W references.
    private static func location(_ gps: TIFFDirectory) -> PhotoMetadata.Location? {
        func degrees(_ tag: UInt16, _ ref: UInt16, negative: String, limit: Double) -> Double? {
            guard let d = gps.number(tag, 0), let m = gps.number(tag, 1) else { return nil }
            /* rounded to 1e-7 degrees (about a centimetre): what the rationals can mean, without float noise */
            let value = ((d + m / 60 + (gps.number(tag, 2) ?? 0) / 3600) * 1e7).rounded() / 1e7
            guard value.isFinite, value >= 0, value <= limit else { return nil }
            return gps.text(ref)?.uppercased() == negative ? -value : value
        }
        guard let latitude = degrees(2, 1, negative: "S", limit: 90), let longitude = degrees(4, 3, negative: "W", limit: 180) else {
            return nil
        }
        var altitude = gps.number(6).flatMap { $0.isFinite && abs($0) < 100_000 ? $0 : nil }
        if gps.integer(5) == 1, let a = altitude { altitude = -a }
        return PhotoMetadata.Location(latitude: latitude, longitude: longitude, altitude: altitude)
    }
}
