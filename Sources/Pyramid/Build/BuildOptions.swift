import ImageCodecs
/// How `tileserver build` lays out and encodes a prebuilt pyramid.
package struct BuildOptions: Sendable, Hashable {
    package enum Layout: String, Sendable, CaseIterable {
        /// `NAME.dzi` plus `NAME_files/L/x_y.EXT`, as `vips dzsave` writes it.
        case dzi
        /// `L/x/y.EXT` directly under the output directory, for XYZ clients.
        case xyz
    }

    package var layout: Layout
    package var tileSize: Int
    var overlap: Int
    package var format: ImageFormat
    package var quality: Int
    var pngLevel: Int
    /// Encoder threads; the decode runs on one more.
    var threads: Int

    package init(layout: Layout = .dzi, tileSize: Int = 256, overlap: Int = 0, format: ImageFormat = .jpeg,
                quality: Int = 85, pngLevel: Int = 3, threads: Int = 2) {
        self.layout = layout
        self.tileSize = tileSize
        self.overlap = overlap
        self.format = format
        self.quality = quality
        self.pngLevel = pngLevel
        self.threads = max(1, threads)
    }
}
