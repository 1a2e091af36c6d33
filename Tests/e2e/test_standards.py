"""IIIF Image API 3.0 (the public validator, and pixels against libvips), DeepZoom and the API templates."""
import io
import json
import subprocess
import tempfile

import pytest
from PIL import Image, ImageChops, ImageStat

from conftest import FIXTURES, Server, assert_iiif_validator_passes

IIIF_ID = "67352ccc-d1b0-11e1-89ae-279075081939"
IIIF_IMAGE = FIXTURES.parent / "iiif" / f"{IIIF_ID}.png"
PHOTO = FIXTURES.parent / "gallery" / "large.jpg"


@pytest.fixture(scope="module")
def standards():
    s = Server([str(IIIF_IMAGE), str(PHOTO), str(FIXTURES / "baseline.jpg"), "--access-log", "off"])
    yield s
    s.stop()


def test_public_iiif_validator_passes_at_level_2(standards):
    assert_iiif_validator_passes(standards.port, IIIF_ID)


def test_info_json(standards):
    response, body = standards.get("/iiif/3/large/info.json", headers={"Host": "tiles.example:81"})
    info = json.loads(body)
    assert response.getheader("Content-Type") == "application/json"
    assert info["id"] == "http://tiles.example:81/iiif/3/large"
    assert info["type"] == "ImageService3" and info["profile"] == "level2" and info["protocol"] == "http://iiif.io/api/image"
    assert (info["width"], info["height"]) == (3996, 2582)
    assert info["maxWidth"] == 3996 and info["maxHeight"] == 2582
    assert info["tiles"] == [{"width": 256, "scaleFactors": [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]}]
    assert {"width": 999, "height": 646} in info["sizes"]
    assert set(info["extraQualities"]) == {"color", "gray", "bitonal"} and "mirroring" in info["extraFeatures"]
    response, body = standards.get("/iiif/3/large/info.json", headers={"Accept": "application/ld+json",
                                                                       "X-Forwarded-Proto": "https", "X-Forwarded-Host": "iiif.example"})
    assert response.getheader("Content-Type") == 'application/ld+json;profile="http://iiif.io/api/image/3/context.json"'
    assert json.loads(body)["id"] == "https://iiif.example/iiif/3/large"
    response, _ = standards.get("/iiif/3/large")
    assert response.status == 303 and response.getheader("Location").endswith("/iiif/3/large/info.json")
    assert standards.get("/iiif/3/nope/info.json")[0].status == 404
    assert standards.get("/iiif/3/l%61rge/info.json")[0].status == 200, "escaped ids are decoded once"


@pytest.mark.parametrize("path,status", [
    ("/iiif/3/large/0,0,0,10/max/0/default.jpg", 400), ("/iiif/3/large/5000,0,10,10/max/0/default.jpg", 400),
    ("/iiif/3/large/full/5000,/0/default.jpg", 400), ("/iiif/3/large/full/^9000,/0/default.jpg", 400),
    ("/iiif/3/large/full/max/45/default.jpg", 501), ("/iiif/3/large/full/max/0/default.tif", 501),
    ("/iiif/3/large/full/max/0/sepia.jpg", 400), ("/iiif/3/large/full/max/0/default.xyz", 400),
])
def test_iiif_errors(standards, path, status):
    response, body = standards.get(path)
    assert response.status == status and json.loads(body)["status"] == status


def vips_reference(region, size):
    """libvips' answer: vips crop of the full-resolution image, then vips resize to the size."""
    x, y, w, h = region
    out = tempfile.mkdtemp()
    subprocess.run(["vips", "crop", str(PHOTO), f"{out}/c.v", str(x), str(y), str(w), str(h)], check=True)
    subprocess.run(["vips", "resize", f"{out}/c.v", f"{out}/r.png", str(size[0] / w), "--vscale", str(size[1] / h)], check=True)
    return Image.open(f"{out}/r.png").convert("RGB")


def psnr(a, b):
    diff = ImageChops.difference(a, b)
    mse = sum(v * v for v in ImageStat.Stat(diff).rms) / 3
    return 99 if mse == 0 else 10 * __import__("math").log10(255 * 255 / mse)


@pytest.mark.parametrize("region,size,expected", [
    ("full", "max", ((0, 0, 3996, 2582), (3996, 2582))),
    ("full", "500,", ((0, 0, 3996, 2582), (500, 323))),
    ("full", ",300", ((0, 0, 3996, 2582), (464, 300))),
    ("full", "pct:10", ((0, 0, 3996, 2582), (400, 258))),
    ("full", "!400,400", ((0, 0, 3996, 2582), (400, 258))),
    ("1000,700,640,480", "max", ((1000, 700, 640, 480), (640, 480))),
    ("1000,700,640,480", "320,240", ((1000, 700, 640, 480), (320, 240))),
    ("3800,2400,400,400", "max", ((3800, 2400, 196, 182), (196, 182))),
    ("pct:25,25,50,50", "600,", ((999, 646, 1998, 1291), (600, 388))),
    ("square", "256,256", ((707, 0, 2582, 2582), (256, 256))),
    ("0,0,2048,2048", "256,", ((0, 0, 2048, 2048), (256, 256))),
    ("123,456,789,321", "200,100", ((123, 456, 789, 321), (200, 100))),
])
def test_regions_and_sizes_match_libvips(standards, region, size, expected):
    response, body = standards.get(f"/iiif/3/large/{region}/{size}/0/default.png")
    assert response.status == 200, body
    ours = Image.open(io.BytesIO(body)).convert("RGB")
    (x, y, w, h), out = expected
    assert ours.size == out
    value = psnr(ours, vips_reference((x, y, w, h), out))
    assert value >= 30, f"{region} {size}: PSNR {value:.1f} dB"


def test_rotation_mirror_and_qualities(standards):
    def get(path):
        response, body = standards.get(path)
        assert response.status == 200, body
        return Image.open(io.BytesIO(body))
    base = get("/iiif/3/large/0,0,400,200/max/0/default.png").convert("RGB")
    assert get("/iiif/3/large/0,0,400,200/max/90/default.png").size == (200, 400)
    assert psnr(get("/iiif/3/large/0,0,400,200/max/180/default.png").convert("RGB"), base.rotate(180)) > 40
    assert psnr(get("/iiif/3/large/0,0,400,200/max/!0/default.png").convert("RGB"), base.transpose(Image.FLIP_LEFT_RIGHT)) > 40
    assert psnr(get("/iiif/3/large/0,0,400,200/max/90/default.png").convert("RGB"), base.rotate(-90, expand=True)) > 40
    assert get("/iiif/3/large/0,0,400,200/max/0/gray.png").mode == "L"
    bitonal = get("/iiif/3/large/0,0,400,200/max/0/bitonal.png")
    assert {v for _, v in bitonal.getcolors()} <= {0, 255}


def test_small_requests_do_not_decode_full_resolution(standards):
    """A thumbnail comes from a low level: the full-resolution pass never starts (no render at level 12)."""
    s = Server([str(PHOTO), "--access-log", "off"])
    try:
        response, _ = s.get("/iiif/3/large/full/200,/0/default.jpg")
        assert response.status == 200
        _, metrics = s.get("/metrics")
        text = metrics.decode()
        rendered = int(next(l.split()[1] for l in text.splitlines() if l.startswith("tileserver_tiles_rendered_total")))
        assert rendered <= 4
        response, _ = s.get("/images/large/tiles/12/0/0.jpg")   # a full-resolution tile afterwards is a fresh render
        assert response.status == 200
    finally:
        s.stop()


def test_deepzoom_descriptor_and_tiles_share_the_tile_path(standards):
    response, body = standards.get("/images/large.dzi")
    assert response.status == 200 and response.getheader("Content-Type").startswith("application/xml")
    text = body.decode()
    assert 'TileSize="256"' in text and 'Overlap="0"' in text and 'Format="jpg"' in text
    assert 'Width="3996"' in text and 'Height="2582"' in text
    a, tile_a = standards.get("/images/large_files/12/15_10.jpg")
    b, tile_b = standards.get("/images/large/tiles/12/15/10.jpg")
    assert a.status == 200 and tile_a == tile_b and a.getheader("ETag") == b.getheader("ETag")
    assert Image.open(io.BytesIO(tile_a)).size == (3996 - 15 * 256, 2582 - 10 * 256)
    assert standards.get("/images/large_files/13/0_0.jpg")[0].status == 404
    assert standards.get("/images/nope.dzi")[0].status == 404
    one = standards.json("/api/images/large")
    assert one["dzi"] == f"/images/large.dzi?v={one['version']}" and one["iiif"] == f"/iiif/3/large@{one['version']}/info.json"
