import ImageValues
/// The DeepZoom `.dzi` document, formatted as `vips dzsave` writes it (the builder and the server share it).
package enum DeepZoomDescriptor {
    package static func xml(width: Int, height: Int, tileSize: Int, overlap: Int, format: ImageFormat) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
          Format="\(format.fileExtension)"
          Overlap="\(overlap)"
          TileSize="\(tileSize)"
          >
          <Size 
            Height="\(height)"
            Width="\(width)"
          />
        </Image>

        """
    }
}
