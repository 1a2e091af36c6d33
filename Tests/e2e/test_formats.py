"""The archive formats served as the JPEG master is: a pyramidal TIFF, a flat tiled TIFF, a striped TIFF, a BigTIFF and
a JPEG 2000 made from one photo give the same tiles; the public IIIF validator passes on a TIFF-backed and a JP2-backed
image; OpenSeadragon renders both in Chromium; WebP and AVIF tiles decode there too, and the viewer asks for them."""
import io
import json
import math
import struct
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from conftest import FIXTURES, ROOT, Server, assert_iiif_validator_passes, binary
from test_library import metric
from test_viewers import OSD_PAGE, TileWatch, not_blank, settle, VENDOR

PHOTO = FIXTURES.parent / "gallery" / "large.jpg"      # 3996 x 2582
W, H = 3996, 2582
MAX_LEVEL = math.ceil(math.log2(max(W, H)))
IIIF_ID = "67352ccc-d1b0-11e1-89ae-279075081939"
IIIF_IMAGE = FIXTURES.parent / "iiif" / f"{IIIF_ID}.png"

# name -> how it is made from the photo (PNG in, the file out)
VARIANTS = {
    "pyramid.tif": ["vips", "tiffsave", "{png}", "{out}", "--tile", "--pyramid", "--compression", "jpeg", "--Q", "95"],
    "flat.tif": ["vips", "tiffsave", "{png}", "{out}", "--tile", "--compression", "deflate", "--predictor", "horizontal"],
    "striped.tif": ["vips", "tiffsave", "{png}", "{out}", "--compression", "lzw"],
    "bigtiff.tif": ["vips", "tiffsave", "{png}", "{out}", "--tile", "--pyramid", "--bigtiff", "--subifd", "--compression", "deflate"],
    # Lossy, at 48 dB PSNR, with the irreversible 9/7 wavelet: an archive's access copy.
    "photo.jp2": ["opj_compress", "-i", "{png}", "-o", "{out}", "-n", "6", "-t", "1024,1024", "-q", "48", "-I"],
    # Lossless, with the reversible 5/3 wavelet: an archive's master.
    "lossless.jp2": ["opj_compress", "-i", "{png}", "-o", "{out}", "-n", "6", "-t", "1024,1024"],
}



def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body


def jph(codestream, width, height):
    """A JPH file (ISO 15444-15 Annex D): the JP2 boxes with brand `jph `, around an HTJ2K code-stream."""
    header = box(b"ihdr", struct.pack(">IIHBBBB", height, width, 3, 7, 7, 0, 0)) + box(b"colr", struct.pack(">BBBI", 1, 0, 0, 16))
    return (box(b"jP  ", b"\r\n\x87\n") + box(b"ftyp", b"jph " + struct.pack(">I", 0) + b"jph ") + box(b"jp2h", header)
            + box(b"jp2c", codestream))


def htj2k(png, out, **options):
    """An HTJ2K code-stream made by OpenJPH through imagecodecs (how the IIIF community's test set was made)."""
    import imagecodecs
    import numpy
    pixels = numpy.asarray(Image.open(png).convert("RGB"))
    stream = imagecodecs.htj2k_encode(pixels, **options)
    out.write_bytes(jph(stream, pixels.shape[1], pixels.shape[0]) if out.suffix == ".jph" else stream)


# HTJ2K (high-throughput code-blocks): name -> how it is made from the photo's PNG.
HT_VARIANTS = {
    # One tile, lossy (9/7): OpenJPEG's area decode of these came back flat grey.
    "htsingle.j2c": lambda png, out: htj2k(png, out, level=0.005),
    # 1024 px tiles, lossy, in a JPH file.
    "httiled.jph": lambda png, out: htj2k(png, out, level=0.005, tile=(1024, 1024)),
    # Reversible 5/3, 512 px tiles.
    "htlossless.j2c": lambda png, out: htj2k(png, out, reversible=True, tile=(512, 512)),
    # Precincts (OpenJPH's own encoder: imagecodecs does not set them), one tile, lossy.
    "htprecincts.j2c": lambda png, out: subprocess.run(
        ["sh", "-c", f'vips copy "{png}" "{out}.ppm" && ojph_compress -i "{out}.ppm" -o "{out}" -qstep 0.005 '
                     f'-precincts "{{64,64}},{{128,128}},{{256,256}}" && rm "{out}.ppm"'], check=True, capture_output=True),
}


def make(tmp, name, png):
    out = tmp / name
    if name in HT_VARIANTS:
        HT_VARIANTS[name](png, out)
    else:
        subprocess.run([a.format(png=png, out=out) for a in VARIANTS[name]], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def formats(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("formats")
    png = tmp / "photo.png"
    subprocess.run(["vips", "copy", str(PHOTO), str(png)], check=True)
    folder = tmp / "served"
    folder.mkdir()
    shutil.copy(PHOTO, folder / "master.jpg")
    for name in [*VARIANTS, *HT_VARIANTS]:
        make(folder, name, png)
    public = tmp / "public"
    public.mkdir()
    subprocess.run([sys.executable, str(ROOT / "scripts/fetch-viewers.py"), str(VENDOR)], check=True)
    shutil.copy(VENDOR / "openseadragon.js", public)
    (public / "index.html").write_text("<p>formats</p>")
    (public / "osd.html").write_text(OSD_PAGE)
    s = Server([str(folder), "--public", str(public), "--access-log", "off"])
    s.folder = folder
    yield s
    s.stop()


IDS = ["pyramid", "flat", "striped", "bigtiff", "photo", "lossless", "htsingle", "httiled", "htlossless", "htprecincts"]
REVERSIBLE = {"lossless", "htlossless"}


def tile(server, image, level, x, y, ext="jpg"):
    response, body = server.get(f"/images/{image}/tiles/{level}/{x}/{y}.{ext}")
    assert response.status == 200, (image, level, x, y, response.status, body[:200])
    return Image.open(io.BytesIO(body)).convert("RGB")


def mad(a, b):
    assert a.size == b.size
    diff = ImageChops.difference(a, b)
    return sum(ImageStat.Stat(diff).mean) / 3


def test_every_format_is_listed_with_its_structure(formats):
    images = {i["id"]: i for i in formats.json("/api/images")["images"]}
    assert set(IDS) | {"master"} <= set(images), images.keys()
    for image in IDS:
        assert (images[image]["width"], images[image]["height"]) == (W, H), image
    assert images["pyramid"]["source"] == "tiff" and images["photo"]["source"] == "jp2"


@pytest.mark.parametrize("image", IDS)
def test_tiles_match_the_jpeg_master(formats, image):
    """Corner and middle tiles of every level, as PNG: the tiles' pixels. (JPEG tiles of two sources that differ by a
    tenth of a level differ by up to 2 levels: the encoder's rounding, not the pixels.)"""
    worst = 0
    for level in range(0, MAX_LEVEL + 1):
        scale = 2 ** (MAX_LEVEL - level)
        cols, rows = math.ceil(math.ceil(W / scale) / 256), math.ceil(math.ceil(H / scale) / 256)
        picks = {(0, 0), (cols - 1, rows - 1), (cols // 2, rows // 2), (cols - 1, 0), (0, rows - 1)}
        for x, y in sorted(picks):
            ours = tile(formats, image, level, x, y, "png")
            master = tile(formats, "master", level, x, y, "png")
            d = mad(ours, master)
            # Below 16 x 16 pixels one pixel's rounding moves the mean: those get 2.5. The reversible 5/3 wavelet's
            # integer lifting rounds each reduction's low-pass up, a quarter of a level per pass on textured areas (two
            # passes a reduction; opj_decompress -r gives the same): 1.4 to 2.5 from the master at reductions 1 to 5,
            # so a quarter of a level more per reduction.
            reduction = min(MAX_LEVEL - level, 5) if image in REVERSIBLE else 0
            full = ours.size[0] * ours.size[1] >= 256
            limit = (1.5 if full else 2.5) + 0.25 * reduction
            worst = max(worst, d) if full else worst
            assert d <= limit, (image, level, x, y, d)
    print(f"{image}: worst tile mean absolute difference {worst:.2f}")


def flat(picture):
    return max(ImageStat.Stat(picture).stddev) < 1.0


@pytest.mark.parametrize("image", IDS)
def test_no_level_gives_a_uniform_tile_of_the_textured_photo(formats, image):
    """Every level, every tile where the level has up to 16 of them and 16 spread over it beyond: a tile that is one
    flat colour where the master's is textured (OpenJPEG's area decode of HTJ2K gave a flat grey with a 200) fails."""
    checked = 0
    for level in range(0, MAX_LEVEL + 1):
        scale = 2 ** (MAX_LEVEL - level)
        cols, rows = math.ceil(math.ceil(W / scale) / 256), math.ceil(math.ceil(H / scale) / 256)
        every = [(x, y) for y in range(rows) for x in range(cols)]
        for x, y in every[::max(1, len(every) // 16)]:
            ours, master = tile(formats, image, level, x, y, "png"), tile(formats, "master", level, x, y, "png")
            assert not (flat(ours) and not flat(master)), (image, level, x, y, ImageStat.Stat(ours).mean)
            checked += 1
    assert checked >= 57   # 13 levels: every tile of the small ones, 16 spread over each of the larger


def test_tiles_on_the_files_grid_are_its_own_jpegs(browser, formats, tmp_path):
    """Served on the pyramid's own 128 px grid, a JPEG tile is the file's compressed tile as it is (RGB at vips' quality
    95, YCbCr at 85), counted in /metrics: the pixels libtiff decodes from it, and the colours Chromium shows."""
    folder = tmp_path / "grid"
    folder.mkdir()
    shutil.copy(formats.folder / "pyramid.tif", folder)
    subprocess.run(["vips", "tiffsave", str(PHOTO), str(folder / "ycbcr.tif"), "--tile", "--pyramid", "--compression", "jpeg",
                    "--Q", "85", "--tile-width", "128", "--tile-height", "128"], check=True)
    server = Server([str(folder), "--tile-size", "128", "--access-log", "off"])
    page = browser.new_page()
    try:
        level, before = MAX_LEVEL - 1, metric(server, "tileserver_stored_jpeg_tiles_total")
        page.goto(f"http://127.0.0.1:{server.port}/healthz")
        for image in ["pyramid", "ycbcr"]:
            url = f"/images/{image}/tiles/{level}/5/3.jpg"
            response, body = server.get(url)
            assert response.status == 200 and response.getheader("Content-Type") == "image/jpeg"
            stored = Image.open(io.BytesIO(body)).convert("RGB")
            assert stored.size == (128, 128)
            assert mad(stored, tile(server, image, level, 5, 3, "png")) < 0.5, image
            shown = page.evaluate("""async url => { const img = new Image(); img.src = url; await img.decode();
                const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
                const g = c.getContext('2d'); g.drawImage(img, 0, 0);
                const d = g.getImageData(0, 0, c.width, c.height).data, sum = [0, 0, 0];
                for (let i = 0; i < d.length; i += 4) { sum[0] += d[i]; sum[1] += d[i + 1]; sum[2] += d[i + 2]; }
                return sum.map(v => v / (d.length / 4)); }""", url)
            expected = ImageStat.Stat(stored).mean
            assert all(abs(a - b) < 1.0 for a, b in zip(shown, expected)), (image, shown, expected)
        assert metric(server, "tileserver_stored_jpeg_tiles_total") == before + 2
    finally:
        page.close()
        server.stop()


def side_by_side(server, image, level, columns, rows, ext="jpg"):
    """The tiles `columns` x `rows` of `level`, decoded and put together."""
    tiles = [[tile(server, image, level, x, y, ext) for x in columns] for y in rows]
    out = Image.new("RGB", (sum(t.width for t in tiles[0]), sum(r[0].height for r in tiles)))
    top = 0
    for row in tiles:
        left = 0
        for t in row:
            out.paste(t, (left, top))
            left += t.width
        top += row[0].height
    return out


def test_regions_of_whole_tiles_are_the_tiles_joined(formats, tmp_path):
    """The Universal Viewer's 512 px tiles over a 256 px pyramid (and 256 px over a file's 128 px tiles) are blocks of
    whole tiles: answered by joining the tiles' JPEG coefficients, so their pixels are the tiles' (no second loss),
    at the size asked, edge blocks included; counted in /metrics. From a JPEG master's tiles and from a pyramidal
    TIFF's own stored tiles (neither decoded nor encoded)."""
    before = metric(formats, "tileserver_joined_regions_total")
    cases = [  # region, size, level, tile columns, tile rows
        ("1024,512,512,512", "512,", MAX_LEVEL, range(4, 6), range(2, 4)),
        ("3072,2048,924,534", "462,", MAX_LEVEL - 1, range(6, 8), range(4, 6)),    # the bottom right corner
        ("0,0,2048,2048", "512,512", MAX_LEVEL - 2, range(0, 2), range(0, 2)),
    ]
    for region, size, level, columns, rows in cases:
        response, body = formats.get(f"/iiif/3/master/{region}/{size}/0/default.jpg")
        assert response.status == 200 and response.getheader("Content-Type") == "image/jpeg", (region, response.status)
        joined = Image.open(io.BytesIO(body)).convert("RGB")
        expected = side_by_side(formats, "master", level, columns, rows)
        assert joined.size == expected.size, (region, joined.size, expected.size)
        assert mad(joined, expected) < 0.1, region
    assert metric(formats, "tileserver_joined_regions_total") == before + len(cases)
    # Resampled, or off the grid: made the ordinary way.
    for region, size in [("1024,512,512,512", "500,"), ("1000,512,512,512", "512,")]:
        assert formats.get(f"/iiif/3/master/{region}/{size}/0/default.jpg")[0].status == 200
    assert metric(formats, "tileserver_joined_regions_total") == before + len(cases)

    folder = tmp_path / "joined"
    folder.mkdir()
    subprocess.run(["vips", "tiffsave", str(PHOTO), str(folder / "ycbcr.tif"), "--tile", "--pyramid", "--compression", "jpeg",
                    "--Q", "85", "--tile-width", "128", "--tile-height", "128"], check=True)
    server = Server([str(folder), "--tile-size", "128", "--access-log", "off"])
    try:
        stored = metric(server, "tileserver_stored_jpeg_tiles_total")
        response, body = server.get("/iiif/3/ycbcr/512,256,512,512/256,/0/default.jpg")
        assert response.status == 200
        joined = Image.open(io.BytesIO(body)).convert("RGB")
        assert joined.size == (256, 256)
        assert mad(joined, side_by_side(server, "ycbcr", MAX_LEVEL - 1, range(2, 4), range(1, 3))) < 0.1
        assert metric(server, "tileserver_joined_regions_total") == 1
        assert metric(server, "tileserver_stored_jpeg_tiles_total") == stored + 4, "the file's own tiles, joined"
    finally:
        server.stop()


def test_info_reports_the_structure(formats):
    served = formats.folder
    out = subprocess.run([binary(), "info", str(served / "pyramid.tif"), str(served / "photo.jp2"),
                          str(served / "striped.tif")], capture_output=True, text=True, check=True).stdout.splitlines()
    pyramid, jp2, striped = (json.loads(line)["structure"] for line in out)
    assert [l["factor"] for l in pyramid["levels"]] == [1, 2, 4, 8, 16, 32]
    assert pyramid["levels"][0]["compression"] == "JPEG" and pyramid["levels"][0]["tileWidth"] == 128   # vips' default
    assert len(jp2["levels"]) == 6 and jp2["levels"][0]["tileWidth"] == 1024 and "12 tiles" in jp2["notes"]
    assert "tileWidth" not in striped["levels"][0] and striped["levels"][0]["compression"] == "LZW"
    assert "HTJ2K" not in " ".join(jp2["notes"]) and jp2["levels"][0]["compression"] == "jpeg2000"
    for name, tiled in [("httiled.jph", True), ("htsingle.j2c", False)]:
        info = json.loads(subprocess.run([binary(), "info", str(served / name)], capture_output=True, text=True,
                                         check=True).stdout)
        assert (info["width"], info["height"]) == (W, H)
        ht = info["structure"]
        assert any("HTJ2K" in note for note in ht["notes"]) and {l["compression"] for l in ht["levels"]} == {"htj2k"}, ht
        assert ("tileWidth" in ht["levels"][0]) == tiled


def test_webp_tiles_and_images(formats):
    response, body = formats.get("/images/pyramid/tiles/12/3/2.webp")
    assert response.status == 200 and response.getheader("Content-Type") == "image/webp"
    webp = Image.open(io.BytesIO(body))
    assert webp.format == "WEBP" and webp.size == (256, 256)
    assert mad(webp.convert("RGB"), tile(formats, "pyramid", 12, 3, 2, "png")) < 3
    jpeg = formats.get("/images/pyramid/tiles/12/3/2.jpg")[1]
    assert len(body) < len(jpeg), (len(body), len(jpeg))
    response, body = formats.get("/iiif/3/photo/full/400,/0/default.webp")
    assert response.status == 200 and Image.open(io.BytesIO(body)).size == (400, 258)
    assert "webp" in formats.json("/iiif/3/photo/info.json")["extraFormats"]
    response, body = formats.get("/api/images/master/viewport.webp?width=300&height=200")
    assert response.status == 200 and Image.open(io.BytesIO(body)).size == (300, 200)
    view = formats.json("/api/images/master/viewport?width=800&height=600&format=webp")
    assert view["tiles"] and all(".webp?v=" in t["url"] for t in view["tiles"])
    assert formats.get("/api/images/master/viewport?width=800&height=600&format=gif")[0].status == 400


def test_avif_tiles_and_images(formats):
    """AVIF tiles (AV1 through libheif's libaom), decoded by Pillow's libavif: the pixels of the PNG tile within what a
    lossy code loses, in fewer bytes than the JPEG tile; IIIF announces and serves the format."""
    response, body = formats.get("/images/pyramid/tiles/12/3/2.avif")
    assert response.status == 200 and response.getheader("Content-Type") == "image/avif"
    avif = Image.open(io.BytesIO(body))
    assert avif.format == "AVIF" and avif.size == (256, 256)
    assert mad(avif.convert("RGB"), tile(formats, "pyramid", 12, 3, 2, "png")) < 3
    jpeg = formats.get("/images/pyramid/tiles/12/3/2.jpg")[1]
    assert len(body) < len(jpeg), (len(body), len(jpeg))
    assert "avif" in formats.json("/iiif/3/photo/info.json")["extraFormats"]
    response, body = formats.get("/iiif/3/photo/full/400,/0/default.avif")
    assert response.status == 200 and Image.open(io.BytesIO(body)).size == (400, 258)
    # An IIIF tile request in AVIF: the same bytes as the tile URL's.
    assert formats.get("/iiif/3/pyramid/768,512,256,256/256,/0/default.avif")[1] == formats.get("/images/pyramid/tiles/12/3/2.avif")[1]


@pytest.mark.parametrize("variant", ["pyramid.tif", "photo.jp2", "htj2k.jph"])
def test_public_iiif_validator_passes_on_archive_formats(tmp_path, variant):
    # Lossless, so the validator's colour checks see the test image's own colours.
    made = tmp_path / ("made" + Path(variant).suffix)
    if variant.endswith(".tif"):
        subprocess.run(["vips", "tiffsave", str(IIIF_IMAGE), str(made), "--tile", "--pyramid", "--compression", "deflate",
                        "--tile-width", "128", "--tile-height", "128"], check=True)
    elif variant.endswith(".jph"):
        htj2k(IIIF_IMAGE, made, reversible=True)
    else:
        subprocess.run(["opj_compress", "-i", str(IIIF_IMAGE), "-o", str(made), "-n", "5"], check=True, capture_output=True)
    served = tmp_path / "served"
    served.mkdir()
    made.rename(served / (IIIF_ID + made.suffix))
    server = Server([str(served), "--access-log", "off"])
    try:
        assert server.json("/api/images")["images"][0]["source"] == ("tiff" if variant.endswith(".tif") else "jp2")
        assert_iiif_validator_passes(server.port, IIIF_ID)
    finally:
        server.stop()


@pytest.mark.parametrize("image", ["pyramid", "photo"])
def test_openseadragon_renders_tiff_and_jp2(browser, formats, image):
    page = browser.new_page(viewport={"width": 1024, "height": 700})
    watch = TileWatch(page)
    page.goto(f"http://127.0.0.1:{formats.port}/osd.html?source=/iiif/3/{image}/info.json")
    settle(page, "window.opened && window.loaded > 0")
    not_blank(page, f"osd-{image}.png")
    page.evaluate("""() => { const v = window.viewer.viewport;
        v.zoomTo(v.getMaxZoom(), null, true); v.panTo(window.viewer.world.getItemAt(0).getBounds().getCenter(), true); }""")
    settle(page, "window.loaded > 0")
    not_blank(page, f"osd-{image}-deep.png")
    assert page.evaluate("window.failed") == 0 and watch.bad == []
    page.close()


@pytest.mark.parametrize("kept, mime", [("jpg", "image/jpeg"), ("webp", "image/webp"), ("avif", "image/avif")])
def test_the_viewer_asks_for_the_format_the_store_keeps(browser, formats, kept, mime):
    """Tiles are asked for in the store's format (the entry's `format`), so none is transcoded per request."""
    flags = [] if kept == "jpg" else ["--tile-format", kept]
    server = Server([str(formats.folder / "pyramid.tif"), "--access-log", "off", *flags])   # the bundled viewer
    page = browser.new_page(viewport={"width": 900, "height": 600})
    tiles = []
    page.on("response", lambda r: tiles.append((r.url, r.status, r.headers.get("content-type"))) if "/tiles/" in r.url else None)
    try:
        assert server.json("/api/images?folder=")["images"][0]["format"] == kept
        page.goto(f"http://127.0.0.1:{server.port}/")
        page.wait_for_function("window.tileViewer && window.tileViewer.state.ready && window.tileViewer.state.pending === 0",
                               timeout=60_000)
        page.wait_for_load_state("networkidle")
        assert tiles and all(f".{kept}?v=" in url and status == 200 and kind == mime for url, status, kind in tiles), tiles[:5]
        decoded = page.evaluate("[...document.querySelectorAll('img')].filter(i => i.src.includes('/tiles/')).map(i => i.naturalWidth)")
        assert decoded and all(w > 0 for w in decoded)
        not_blank(page, f"viewer-{kept}.png")
    finally:
        page.close()
        server.stop()
