import Library
import Pyramid

/// A fixed set of images as the server serves them: in a library, with a tile service over it.
enum Served {
    static func images(_ images: [PyramidImage], options: TileOptions) -> (ImageLibrary, TileService) {
        let library = ImageLibrary(images: images, options: options)
        return (library, TileService(directory: library, options: options))
    }
}
