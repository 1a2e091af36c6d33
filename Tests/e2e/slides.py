"""Whole-slide images for the tests, made with PyPI's tifffile: Aperio-style SVS files (JPEG tiles, levels at
downsample 1, 4 and 16, a thumbnail, a label and a macro, and an ImageDescription carrying what a scanner writes:
a file name, a user and a barcode that must never leave the server) and a generic tiled TIFF."""
import numpy as np
import tifffile
from PIL import Image

# What the scanner wrote that identifies a patient or a person: no answer may carry any of these.
PRIVATE = ["PATIENT-JOHN-DOE-1234", "secret-user", "MRN-5555", "SS1234"]
MPP = 0.2498


def picture(width, height):
    """Smooth colour with soft round shapes: what a stained section looks like from afar, and little that JPEG
    tiles lose, so a tile compares with OpenSlide's pixels to within a level or two."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    r = 200 + 40 * np.sin(x / 97.0) * np.cos(y / 131.0)
    g = 150 + 60 * np.sin((x + y) / 173.0)
    b = 190 + 50 * np.cos(x / 211.0 - y / 157.0)
    for cx, cy, radius in ((width * 0.3, height * 0.4, height * 0.12), (width * 0.7, height * 0.6, height * 0.2)):
        d = np.hypot(x - cx, y - cy) / radius
        shade = np.clip(1.2 - d, 0, 1)
        r -= 90 * shade
        g -= 120 * shade
        b -= 30 * shade
    return np.clip(np.dstack([r, g, b]), 0, 255).astype(np.uint8)


def aperio(path, width, height, appmag=20, mpp=MPP, marks=()):
    """`marks`: image points where a black 24-pixel square is drawn (what a ruler is laid across in the tests)."""
    base = picture(width, height)
    for x, y in marks:
        base[y - 12:y + 12, x - 12:x + 12] = 0
    head = f"Aperio Image Library v10.0.50\r\n{width}x{height} [0,0 {width}x{height}] (256x256) JPEG/RGB Q=90"
    private = f"|ScanScope ID = {PRIVATE[3]}|Filename = {PRIVATE[0]}|User = {PRIVATE[1]}|Barcode = {PRIVATE[2]}"
    with tifffile.TiffWriter(path) as tif:
        tif.write(base, tile=(256, 256), photometric="rgb", compression="jpeg", compressionargs={"level": 90}, metadata=None,
                  description=f"{head}|AppMag = {appmag}|MPP = {mpp}|Date = 12/29/09|Time = 09:59:15{private}", subfiletype=0)
        thumb = np.asarray(Image.fromarray(base).resize((max(1, width // 32), max(1, height // 32)), Image.BOX))
        tif.write(thumb, photometric="rgb", compression="jpeg", metadata=None,
                  description=f"Aperio Image Library v10.0.50\r\n{width}x{height} -> {thumb.shape[1]}x{thumb.shape[0]} - |AppMag = {appmag}")
        for d in (4, 16):
            level = np.asarray(Image.fromarray(base).resize((width // d, height // d), Image.BOX))
            tif.write(level, tile=(256, 256), photometric="rgb", compression="jpeg", compressionargs={"level": 90}, metadata=None,
                      description=f"{head} -> {width // d}x{height // d} JPEG/RGB Q=90", subfiletype=0)
        label = np.full((200, 300, 3), 240, np.uint8)
        label[60:140, 40:260] = 10                           # a barcode's black bars, as a label shows one
        tif.write(label, photometric="rgb", compression="lzw", metadata=None,
                  description="Aperio Image Library v10.0.50\nlabel 300x200", subfiletype=1)
        macro = np.full((300, 800, 3), 128, np.uint8)
        tif.write(macro, photometric="rgb", compression="jpeg", metadata=None,
                  description="Aperio Image Library v10.0.50\nmacro 800x300", subfiletype=9)
    return base


def generic_tiff(path, width, height):
    """A plain tiled pyramidal TIFF (no vendor): our own TIFF reader's, not OpenSlide's."""
    base = picture(width, height)
    with tifffile.TiffWriter(path) as tif:
        tif.write(base, tile=(256, 256), photometric="rgb", compression="jpeg", subifds=1, metadata=None)
        tif.write(base[::2, ::2], tile=(256, 256), photometric="rgb", compression="jpeg", subfiletype=1, metadata=None)
    return base


def _patched(source, target, patch):
    import struct
    data = bytearray(source.read_bytes())
    with tifffile.TiffFile(source) as tif:
        patch(data, tif, struct)
    target.write_bytes(bytes(data))


def tile_offset_past_the_end(source, target):
    """`source` with one tile of its full-size level said to lie 10 MB past the end of the file."""
    def patch(data, tif, struct):
        tag = tif.pages[0].tags["TileOffsets"]
        struct.pack_into("<I", data, tag.valueoffset + 4 * 7, len(data) + 10_000_000)
    _patched(source, target, patch)


def absurd_level(source, target):
    """`source` with its second level claiming 65,535 × 65,535 pixels: larger than the level above it."""
    def patch(data, tif, struct):
        page = tif.pages[2]
        for name in ("ImageWidth", "ImageLength"):
            tag = page.tags[name]
            struct.pack_into("<H" if tag.dtype == 3 else "<I", data, tag.valueoffset, 65_535)
    _patched(source, target, patch)
