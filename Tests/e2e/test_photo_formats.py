"""The formats phones and the web save photos in, served as the JPEG master of the same photo is: HEIC (heif-enc; a
grid image as iPhones store them; one rotated by `irot`; one tagged Display P3), AVIF (avifenc; rotated; Display P3)
and WebP (cwebp; EXIF orientation 6; Display P3). Tiles of every level match the master's within 1.5 levels after
colour conversion, metadata written by exiftool reaches the API, and files no source reads are listed as such."""
import io
import math
import shutil
import subprocess

import pytest
from PIL import Image

import heif_boxes
from conftest import Server, binary
from icc_profiles import display_p3
from test_formats import MAX_LEVEL, PHOTO, W, H, mad, tile
from test_metadata import EXPECTED, FIELDS


def run(*args):
    subprocess.run([str(a) for a in args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("photos")
    served = tmp / "served"
    served.mkdir()
    png = tmp / "photo.png"
    run("vips", "copy", PHOTO, png)
    shutil.copy(PHOTO, served / "master.jpg")
    # The same photo stored sideways with EXIF orientation 6: upright, it is the master turned a quarter clockwise.
    run("exiftool", "-q", "-Orientation=6", "-n", "-o", served / "sideways.jpg", PHOTO)
    # Turned in its pixels: what every turned file is compared with. (The EXIF-oriented JPEG itself is not: its 1/4
    # level, from libjpeg's scaled decode, is 1.8 levels from the turned pixels', where WebP's and HEIF's are 0.5-0.9.)
    run("vips", "rot", PHOTO, f"{served / 'upright.jpg'}[Q=97]", "d90")
    # The photo converted to Display P3 and tagged with that profile: converted back, it is the master.
    profile = tmp / "display-p3.icc"
    profile.write_bytes(display_p3())
    p3png, p3jpg = tmp / "p3.png", tmp / "p3.jpg"
    run("vips", "icc_transform", png, p3png, profile, "--embedded", "--intent", "relative")
    run("vips", "copy", p3png, f"{p3jpg}[Q=97]")

    run("heif-enc", "-q", "95", "-p", "preset=ultrafast", png, "-o", served / "heic.heic")
    heif_boxes.rotated(served / "heic.heic", served / "heic-sideways.heic", 3)   # 270° anticlockwise: a quarter clockwise
    assert heif_boxes.grid(png, served / "heic-grid.heic", tile=1024) == 12
    run("heif-enc", "-q", "95", "-p", "preset=ultrafast", p3jpg, "-o", served / "heic-p3.heic")
    run("avifenc", "-s", "10", "--min", "0", "--max", "8", png, served / "avif.avif")
    run("avifenc", "-s", "10", "--min", "0", "--max", "8", "--irot", "3", png, served / "avif-sideways.avif")
    run("avifenc", "-s", "10", "--min", "0", "--max", "8", p3png, served / "avif-p3.avif")
    run("cwebp", "-quiet", "-q", "97", png, "-o", served / "webp.webp")
    run("cwebp", "-quiet", "-q", "97", "-metadata", "exif", served / "sideways.jpg", "-o", served / "webp-sideways.webp")
    run("cwebp", "-quiet", "-q", "97", "-metadata", "icc", p3png, "-o", served / "webp-p3.webp")
    # Files no source reads, beside them.
    run("vips", "resize", PHOTO, tmp / "small.png", "0.05")
    run("vips", "gifsave", tmp / "small.png", served / "animation.gif")
    (served / "next-gen.jxl").write_bytes(b"\xff\x0a" + bytes(200))
    (served / "raw.CR3").write_bytes(b"\0\0\0\x18ftypcrx " + bytes(200))
    # PNG in the store: the PNG tiles compared below come from the passes, not from a whole decode each.
    s = Server([str(served), "--access-log", "off", "--tile-format", "png"])
    s.folder = served
    yield s
    s.stop()


UPRIGHT = {"heic": "master", "heic-grid": "master", "heic-p3": "master", "avif": "master", "avif-p3": "master",
           "webp": "master", "webp-p3": "master", "heic-sideways": "upright", "avif-sideways": "upright",
           "webp-sideways": "upright"}


def test_every_photo_is_listed_with_its_format(photos):
    images = {i["id"]: i for i in photos.json("/api/images")["images"]}
    for image, master in UPRIGHT.items():
        assert (images[image]["width"], images[image]["height"]) == ((W, H) if master == "master" else (H, W)), image
        assert "error" not in images[image], images[image]
    assert {images[i]["source"] for i in ("heic", "heic-grid", "heic-p3", "heic-sideways")} == {"heic"}
    assert {images[i]["source"] for i in ("avif", "avif-p3", "avif-sideways")} == {"avif"}
    assert {images[i]["source"] for i in ("webp", "webp-p3", "webp-sideways")} == {"webp"}


@pytest.mark.parametrize("image", sorted(UPRIGHT))
def test_tiles_match_the_jpeg_master(photos, image):
    master = UPRIGHT[image]
    width, height = (W, H) if master == "master" else (H, W)
    worst = 0
    for level in range(0, MAX_LEVEL + 1):
        scale = 2 ** (MAX_LEVEL - level)
        cols, rows = math.ceil(math.ceil(width / scale) / 256), math.ceil(math.ceil(height / scale) / 256)
        for x, y in sorted({(0, 0), (cols - 1, rows - 1), (cols // 2, rows // 2), (cols - 1, 0)}):
            ours, theirs = tile(photos, image, level, x, y, "png"), tile(photos, master, level, x, y, "png")
            d = mad(ours, theirs)
            full = ours.size[0] * ours.size[1] >= 256
            worst = max(worst, d) if full else worst
            assert d <= (1.5 if full else 2.5), (image, level, x, y, d)
    print(f"{image}: worst tile mean absolute difference {worst:.2f}")


def test_info_says_what_each_file_is(photos):
    for name, words in [("heic-grid.heic", "HEIF (HEVC)"), ("avif.avif", "AVIF (AV1)"), ("webp-p3.webp", "converted to sRGB"),
                        ("heic-p3.heic", "converted to sRGB"), ("avif-p3.avif", "converted to sRGB")]:
        out = subprocess.run([binary(), "info", str(photos.folder / name)], capture_output=True, text=True, check=True).stdout
        assert words in out, (name, out)


@pytest.mark.parametrize("ext", ["heic", "avif", "webp"])
def test_metadata_reaches_the_api(photos, tmp_path, ext):
    folder = tmp_path / "meta"
    folder.mkdir()
    shutil.copy(photos.folder / f"{ext}.{ext}", folder / f"glacier.{ext}")
    run("exiftool", "-q", "-overwrite_original", *FIELDS, folder / f"glacier.{ext}")
    server = Server([str(folder), "--access-log", "off"])
    try:
        assert server.json("/api/images/glacier")["metadata"] == EXPECTED
        response, body = server.get("/images/glacier/tiles/9/0/0.jpg")
        assert response.status == 200 and Image.open(io.BytesIO(body)).size[0] > 0
    finally:
        server.stop()


def test_files_no_source_reads_are_listed_as_such(photos):
    images = {i["id"]: i for i in photos.json("/api/images")["images"]}
    for image, name in [("animation", "GIF"), ("next-gen", "JPEG XL")]:
        assert image in images, sorted(images)
        assert f"cannot be shown: format not supported ({name})" in images[image]["error"], images[image]
        assert photos.get(f"/images/{image}/tiles/0/0/0.jpg")[0].status >= 400
    # A camera raw alone is a shot without a preview, not a broken file (issue 60, item 3).
    assert images["raw"]["rawOnly"] is True and images["raw"]["error"].startswith("RAW without a preview: Canon raw"), images["raw"]
    assert photos.get("/images/raw/tiles/0/0/0.jpg")[0].status >= 400
