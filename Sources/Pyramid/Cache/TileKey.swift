import ImageCodecs
import TileGeometry
/// Identifies one encoded tile in the caches. `generation` changes whenever the source file does, so tiles of
/// an old version are never served for a new one.
package struct TileKey: Hashable, Sendable {
    package var image: String
    package var generation: Int
    package var tile: TileCoordinate
    package var format: ImageFormat

    package init(image: String, generation: Int, tile: TileCoordinate, format: ImageFormat) {
        self.image = image
        self.generation = generation
        self.tile = tile
        self.format = format
    }

    /// Hashes all but the image's id: generations are unique across images and versions (`PyramidImage`), so
    /// the id adds nothing to the hash but the cost of hashing a string on every cache look. Equality still
    /// compares it.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(generation)
        hasher.combine(tile)
        hasher.combine(format)
    }
}
