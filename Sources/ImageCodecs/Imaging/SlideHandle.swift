import CImageIO

/// An open OpenSlide handle (`tsio_slide_*`), closed when released. OpenSlide reads one handle from many threads
/// at once; `SlideHandles` keeps a few open for every decode to share.
final class SlideHandle: @unchecked Sendable {
    let raw: OpaquePointer

    init(path: String) throws {
        var st = tsio_status()
        guard let raw = tsio_slide_open(path, &st) else { throw st.error(path: path, format: .slide, rows: 0) }
        self.raw = raw
    }

    deinit { tsio_slide_close(raw) }

    /// The slide's property `name` ("openslide.mpp-x", "aperio.AppMag"), if it has it.
    func property(_ name: String) -> String? {
        tsio_slide_property(raw, name).map { String(cString: $0) }
    }

    /// The associated images' names ("label", "macro", "thumbnail").
    var associatedNames: [String] { Self.strings(tsio_slide_associated_names(raw)) }

    private static func strings(_ list: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        var out: [String] = [], i = 0
        while let name = list[i] {
            out.append(String(cString: name))
            i += 1
        }
        return out
    }
}
