/// The plain values every codec takes and gives (`PixelRect`, `ImageFormat`) live in the leaf target `ImageValues`,
/// so geometry can name them without the codecs; a user of the codecs gets them with them.
@_exported import ImageValues
