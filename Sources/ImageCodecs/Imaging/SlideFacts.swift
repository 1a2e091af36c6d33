import CImageIO

/// What a slide says of itself that is published: the vendor, the scanned area and its place on the slide, the
/// background colour, the objective power, microns per pixel and the scan date. Read from an allow-list of
/// OpenSlide's properties only: scanner properties can carry a user, a file name or a barcode that identifies a
/// patient, and those never leave the server.
public struct SlideFacts: Sendable, Hashable {
    public let vendor: String
    /// The image: the scanned area where the slide gives bounds, else level 0 whole.
    public let width: Int
    public let height: Int
    /// Where the image's top-left lies in level 0 (the bounds' offset; 0 without bounds).
    public let originX: Int
    public let originY: Int
    /// 0xRRGGBB: what fills the slide outside the scanned area (`openslide.background-color`, else white).
    let background: UInt32
    public let objectivePower: Double?
    public let micronsPerPixelX: Double?
    public let micronsPerPixelY: Double?
    public let scanDate: String?
    /// The images that come with the slide ("label", "macro", "thumbnail"…), by name, with their sizes. Listed
    /// here; whether the label and the macro are served is the access rule's (`slide_labels`).
    public let associated: [Associated]

    public struct Associated: Sendable, Hashable {
        public let name: String
        public let width: Int
        public let height: Int
        /// The label, and the macro (a photo of the whole slide, label included): they often carry a patient's
        /// name or number.
        public var showsLabel: Bool { name == "label" || name == "macro" }
    }

    /// Properties a scan date is read from, by vendor.
    static let dateProperties = ["aperio.Date", "hamamatsu.Created", "leica.creation-date", "philips.DICOM_ACQUISITION_DATETIME",
                                 "ventana.ScanDate"]

    init(vendor: String, handle: SlideHandle, levelWidth: Int, levelHeight: Int) {
        func number(_ name: String) -> Double? { handle.property(name).flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil } }
        func integer(_ name: String) -> Int? { handle.property(name).flatMap { Int($0) } }
        self.vendor = vendor
        if let x = integer("openslide.bounds-x"), let y = integer("openslide.bounds-y"),
           let w = integer("openslide.bounds-width"), let h = integer("openslide.bounds-height"),
           x >= 0, y >= 0, w > 0, h > 0, x + w <= levelWidth, y + h <= levelHeight {
            (originX, originY, width, height) = (x, y, w, h)
        } else {
            (originX, originY, width, height) = (0, 0, levelWidth, levelHeight)
        }
        background = handle.property("openslide.background-color").flatMap { $0.count == 6 ? UInt32($0, radix: 16) : nil } ?? 0xFFFFFF
        objectivePower = number("openslide.objective-power")
        micronsPerPixelX = number("openslide.mpp-x")
        micronsPerPixelY = number("openslide.mpp-y")
        var date = Self.dateProperties.lazy.compactMap { handle.property($0) }.first
        if let day = date, vendor == "aperio", let time = handle.property("aperio.Time") { date = "\(day) \(time)" }
        scanDate = date.map { String($0.prefix(64)) }
        associated = handle.associatedNames.compactMap { name in
            var w: Int64 = 0, h: Int64 = 0
            guard tsio_slide_associated_size(handle.raw, name, &w, &h) == 0 else { return nil }
            return Associated(name: name, width: Int(w), height: Int(h))
        }
    }
}

extension ImageSource {
    /// What a whole-slide image publishes of itself; nil for every other source.
    package var slide: SlideFacts? { (self as? SlideSource)?.facts }

    /// The slide's associated image `name`, decoded; nil for every other source or a name it does not have.
    package func associatedImage(_ name: String) throws -> PixelBuffer? {
        guard let slide = self as? SlideSource, let entry = slide.facts.associated.first(where: { $0.name == name }) else { return nil }
        return try slide.associatedImage(entry)
    }
}
