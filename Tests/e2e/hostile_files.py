"""Makes a folder of broken and hostile images from the good fixtures (seeded, so every run gets the same files):
truncations, bit flips, wrong magic, decompression bombs by header and by data, 0 x N sizes, endless IDAT chunks,
a JPEG with thousands of scans, EXIF with absurd offsets, a 2-gigapixel interlaced PNG header, broken and hostile ICC
profiles (wrong size field, half a profile, an absurd tag count, tags far outside it, a gray or CMYK profile on RGB
pixels, an iCCP chunk that does not inflate), XMP and IPTC blocks of junk, and TIFF and JPEG 2000 files cut short or
flipped, with a looping directory chain, a 1 x 4,000,000,000 strip, 39 million tiles with no arrays behind them and a
code-stream claiming 2^31 pixels square; WebP, HEIC and AVIF cut short and flipped, an ispe claiming 100,000² pixels,
a meta box running past the file, an empty VP8X canvas, thousands of empty chunks.

    python3 Tests/e2e/hostile_files.py OUT_DIR [FIXTURES_DIR]

`make(out, fixtures)` returns {file name: kind}: "header" files fail as soon as their header is read,
"data" files fail during decoding, "maybe" files may decode (with warnings) or fail; all must be answered quickly."""
import random
import struct
import sys
import zlib
from pathlib import Path


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, color=2, interlace=0, idat=b"", extra=b"") -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, interlace)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + (chunk(b"IDAT", idat) if idat else b"") + extra + chunk(b"IEND", b"")


def sof_offset(jpeg: bytes) -> int:
    """Offset of the first SOFn marker's height field."""
    i = 2
    while i < len(jpeg) - 4:
        marker, length = jpeg[i + 1], struct.unpack(">H", jpeg[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            return i + 5
        i += 2 + length
    raise ValueError("no SOF")


def scans(jpeg: bytes):
    """(start, end) of each SOS segment with its entropy-coded data."""
    out, i = [], jpeg.find(b"\xff\xda")
    while i != -1:
        j = i + 2
        while True:
            j = jpeg.find(b"\xff", j)
            if j == -1 or (jpeg[j + 1] not in (0x00,) and not 0xD0 <= jpeg[j + 1] <= 0xD7):
                break
            j += 2
        out.append((i, j))
        i = jpeg.find(b"\xff\xda", j) if j != -1 else -1
    return out


def flipped(source: bytes, rng, start: int) -> bytes:
    """`source` with 8 single bits flipped at or after byte `start`."""
    out = bytearray(source)
    for _ in range(8):
        out[rng.randrange(start, len(source))] ^= 1 << rng.randrange(8)
    return bytes(out)


def make(out: Path, fixtures: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    jpeg = (fixtures / "baseline.jpg").read_bytes()
    pngb = (fixtures / "rgb.png").read_bytes()
    progressive = (fixtures / "progressive.jpg").read_bytes()
    rng = random.Random(12)

    def put(name, data, kind):
        (out / name).write_bytes(data)
        files[name] = kind

    for source, ext in ((jpeg, "jpg"), (pngb, "png")):
        cuts = [2, 9, 40, 120, len(source) // 4, len(source) // 2, len(source) * 3 // 4, len(source) - 3]
        for k, cut in enumerate(cuts):
            header_end = 121 if ext == "jpg" else 41  # JPEG tables come before the first scan
            # A PNG without its IEND chunk still has every row: libpng accepts it.
            kind = "header" if cut < header_end else ("maybe" if ext == "png" and k == 7 else "data")
            put(f"trunc-{ext}-{k}.{ext}", source[:cut], kind)
        for k in range(6):
            put(f"flip-{ext}-{k}.{ext}", flipped(source, rng, 20), "maybe")
    put("magic-png-named-jpg.jpg", pngb, "maybe")  # content decides the format, not the name
    put("magic-random.jpg", bytes(rng.randrange(256) for _ in range(4096)), "header")
    put("magic-empty.png", b"", "header")
    put("magic-text.png", b"<html>not an image</html>\n" * 10, "header")
    at = sof_offset(jpeg)
    put("bomb-header.jpg", jpeg[:at] + struct.pack(">HH", 60000, 60000) + jpeg[at + 4:], "header")
    put("bomb-header.png", png(100000, 100000, idat=zlib.compress(b"\0" * 1000)), "header")
    put("zero-height.jpg", jpeg[:at] + struct.pack(">H", 0) + jpeg[at + 2:], "header")
    put("zero-width.png", png(0, 500, idat=zlib.compress(b"\0" * 100)), "header")
    put("interlaced-2-gigapixel.png", png(44000, 45000, interlace=1, idat=zlib.compress(b"\0" * 10000)), "header")
    # A valid 16,000² gray image whose few hundred KB inflate to 256 MB (a bomb by data, but a real image).
    row = b"\0" + b"\x80" * 16000
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(16000)) + compressor.flush()
    put("bomb-data.png", png(16000, 16000, color=0, idat=data), "maybe")
    # A small image followed by 20,000 more IDAT chunks: the stream never ends where it should.
    small = zlib.compress((b"\0" + b"\x40" * 192) * 64)
    put("endless-idat.png", png(64, 64, idat=small, extra=chunk(b"IDAT", b"\x78\x9c" + b"\0" * 64) * 20000), "maybe")
    # The last scan of a progressive JPEG repeated 3,000 times.
    segments = scans(progressive)
    start, end = segments[-1]
    put("thousands-of-scans.jpg", progressive[:end] + progressive[start:end] * 3000 + b"\xff\xd9", "data")
    # EXIF whose IFD offset and entry count point far outside the block.
    for k, tiff in enumerate([b"II*\x00" + struct.pack("<I", 0xFFFFFFF0),
                              b"MM\x00*" + struct.pack(">IH", 8, 0xFFFF) + b"\x01\x12\x00\x03",
                              b"II*\x00" + struct.pack("<IH", 8, 1) + struct.pack("<HHII", 0x0112, 3, 0x7FFFFFFF, 0xFFFFFFFF)]):
        app1 = b"Exif\x00\x00" + tiff
        put(f"exif-absurd-{k}.jpg", jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:], "maybe")
    # ICC profiles that must be ignored (the image served as untagged, with a warning), never trusted.
    profile = bytearray(Path("/usr/share/color/icc/colord/AdobeRGB1998.icc").read_bytes())
    broken = {
        "icc-size-field": bytes(struct.pack(">I", len(profile) + 4096) + profile[4:]),
        "icc-half": bytes(profile[:len(profile) // 2]),
        "icc-tag-count": bytes(profile[:128] + struct.pack(">I", 0xFFFFFFFF) + profile[132:]),
        "icc-tag-offsets": bytes(profile[:132] + b"".join(profile[132 + 12 * i:136 + 12 * i] + struct.pack(">II", 0x7FFFFFF0, 0x7FFFFFF0)
                                                          for i in range(struct.unpack(">I", profile[128:132])[0]))
                                 + profile[132 + 12 * struct.unpack(">I", profile[128:132])[0]:]),
    }
    gray = Path("/usr/share/color/icc/Gray.icc")
    if gray.exists():
        broken["icc-gray-on-rgb"] = gray.read_bytes()
    for name, data in broken.items():
        app2 = b"ICC_PROFILE\x00\x01\x01" + data
        if len(app2) + 2 <= 0xFFFF:
            put(f"{name}.jpg", jpeg[:2] + b"\xff\xe2" + struct.pack(">H", len(app2) + 2) + app2 + jpeg[2:], "maybe")
    ihdr_end = 8 + 12 + 13
    put("icc-not-zlib.png", pngb[:ihdr_end] + chunk(b"iCCP", b"icc\x00\x00" + b"\x78\x9c" + bytes(rng.randrange(256) for _ in range(300)))
        + pngb[ihdr_end:], "maybe")
    put("icc-cmyk-on-rgb.png", pngb[:ihdr_end] + chunk(b"iCCP", b"icc\x00\x00" + zlib.compress(bytes(profile[:16]) + b"CMYK" + bytes(profile[20:])))
        + pngb[ihdr_end:], "maybe")
    # Metadata blocks of junk: unterminated XMP tags and entities, IPTC datasets that run past their block.
    xmp = b"http://ns.adobe.com/xap/1.0/\x00" + (b"<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>&#xFFFFFFFF;&bogus" * 700)[:60000]
    put("xmp-junk.jpg", jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(xmp) + 2) + xmp + jpeg[2:], "maybe")
    iptc = b"Photoshop 3.0\x00" + b"8BIM\x04\x04\x00\x00" + struct.pack(">I", 0x7FFFFFFF) + b"\x1c\x02\x05\xff\xff" * 400
    put("iptc-junk.jpg", jpeg[:2] + b"\xff\xed" + struct.pack(">H", len(iptc) + 2) + iptc + jpeg[2:], "maybe")
    archive_files(put, fixtures, rng)
    photo_files(put, fixtures, rng)
    return files


def tiff(entries, data=b"", next_is_self=False):
    """A little-endian classic TIFF: one directory of (tag, type, count, value) entries, then `data`."""
    out = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    out += b"".join(struct.pack("<HHII", *e) for e in entries)
    return out + struct.pack("<I", 8 if next_is_self else 0) + data


def archive_files(put, fixtures, rng):
    """TIFF and JPEG 2000: what a new reader meets first."""
    pyramid = (fixtures / "pyramid-jpeg.tif").read_bytes()
    jp2 = (fixtures / "lossless.jp2").read_bytes()
    for k, cut in enumerate([4, len(pyramid) // 3, len(pyramid) * 2 // 3, len(pyramid) - 10]):
        put(f"trunc-tif-{k}.tif", pyramid[:cut], "header" if k == 0 else "maybe")
    for k, cut in enumerate([10, len(jp2) // 2, len(jp2) - 10]):
        put(f"trunc-jp2-{k}.jp2", jp2[:cut], "header" if k == 0 else "maybe")
    for source, ext in ((pyramid, "tif"), (jp2, "jp2")):
        for k in range(4):
            put(f"flip-{ext}-{k}.{ext}", flipped(source, rng, 8), "maybe")
    rgb = [(256, 4, 1, 8), (257, 4, 1, 8), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2), (277, 3, 1, 3)]
    data_at = 8 + 2 + 9 * 12 + 4
    put("tif-ifd-loop.tif", tiff(rgb + [(273, 4, 1, data_at), (278, 4, 1, 8), (279, 4, 1, 192)], bytes(192), next_is_self=True), "maybe")
    put("tif-strip-1x4e9.tif", tiff([(256, 4, 1, 1), (257, 4, 1, 4_000_000_000), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2),
                                     (277, 3, 1, 3), (273, 4, 1, data_at), (278, 4, 1, 4_000_000_000), (279, 4, 1, 12_000_000_000 % 2**32)],
                                    bytes(64)), "maybe")
    tiles = (100_000 // 16) ** 2
    put("tif-tiles-absurd.tif", tiff([(256, 4, 1, 100_000), (257, 4, 1, 100_000), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2),
                                      (277, 3, 1, 3), (322, 4, 1, 16), (323, 4, 1, 16), (324, 4, tiles, 0x10000000),
                                      (325, 4, tiles, 0x20000000)]), "maybe")
    siz = struct.pack(">HIIIIIIIIH", 0, 0x7FFFFFFF, 0x7FFFFFFF, 0, 0, 0x7FFFFFFF, 0x7FFFFFFF, 0, 0, 1) + bytes([7, 1, 1])
    put("j2k-siz-bomb.j2k", b"\xff\x4f\xff\x51" + struct.pack(">H", len(siz) + 2) + siz + b"\xff\xd9", "header")


def photo_files(put, fixtures, rng):
    """WebP, HEIC and AVIF: cut short, flipped, claiming sizes they do not hold, animated, junk in their boxes."""
    for name in ("photo.webp", "photo.heic", "photo.avif"):
        source = (fixtures / name).read_bytes()
        ext = name.rsplit(".", 1)[1]
        for k, cut in enumerate([10, 40, len(source) // 2, len(source) - 10]):
            put(f"trunc-{ext}-{k}.{ext}", source[:cut], "header" if k < 2 else "maybe")
        for k in range(4):
            put(f"flip-{ext}-{k}.{ext}", flipped(source, rng, 12), "maybe")
    heic = (fixtures / "photo.heic").read_bytes()
    at = heic.find(b"ispe")
    # The primary image's ispe claiming 100,000 x 100,000: refused from the header, before a decode.
    put("heic-ispe-bomb.heic", heic[:at + 8] + struct.pack(">II", 100_000, 100_000) + heic[at + 16:], "header")
    # A meta box whose length runs past the file; an ftyp of a HEIF brand with nothing after it.
    meta = heic.find(b"meta") - 4
    put("heic-meta-overrun.heic", heic[:meta] + struct.pack(">I", 0x7FFFFFF0) + heic[meta + 4:], "header")
    put("heic-ftyp-only.heic", heic[:heic.find(b"meta") - 4], "header")
    # A grid and an overlay whose descriptors claim far more than their ispe (found by the heic fuzz target: libheif
    # 1.15 allocated gigabytes for them, then crashed).
    findings = Path(__file__).resolve().parents[2] / "Fuzz/Regressions/heic"
    put("heic-grid-bomb.heic", (findings / "grid-output-60000x60000.heic").read_bytes(), "header")
    put("heic-overlay-bomb.heic", (findings / "overlay-canvas-64451x8209.heic").read_bytes(), "header")
    webp = (fixtures / "photo.webp").read_bytes()
    # A VP8X canvas of 16,383 x 16,383 around no image chunk, and an animation flag: both refused from the header.
    vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0x02, 0, 0, 0]) + (16382).to_bytes(3, "little") * 2
    put("webp-vp8x-empty.webp", b"RIFF" + struct.pack("<I", 4 + len(vp8x)) + b"WEBP" + vp8x, "header")
    put("webp-riff-size.webp", webp[:4] + struct.pack("<I", 0xFFFFFFF0) + webp[8:], "maybe")
    put("webp-chunks-junk.webp", b"RIFF" + struct.pack("<I", 4 + 8 * 3000) + b"WEBP" + (b"ICCP" + struct.pack("<I", 0)) * 3000, "header")


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    fixtures = Path(sys.argv[2]) if len(sys.argv) > 2 else root / ".build-fixtures" / "formats"
    for name, kind in make(Path(sys.argv[1]), fixtures).items():
        print(kind, name)
