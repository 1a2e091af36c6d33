"""Colour against libvips, as a photographer would check it: one photo converted by libvips into Adobe RGB, ProPhoto,
eciRGB v2 (Debian's colord-data profiles) and CMYK (a FOGRA39 profile Argyll's colprof builds from the measurement
data in icc-profiles-free), each served by the real server; a full-resolution tile and IIIF `full/1024,` compared
with libvips' own sRGB conversion of the same file in CIEDE2000. With --colour keep, the pixels are the file's own
and every tile and image embeds its profile."""
import io
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from conftest import FIXTURES, Server, binary

COLORD = "/usr/share/color/icc/colord"
PROFILES = {"adobe-rgb": f"{COLORD}/AdobeRGB1998.icc", "prophoto": f"{COLORD}/ProPhotoRGB.icc",
            "eci-rgb-v2": f"{COLORD}/ECI-RGBv2.icc", "cmyk-fogra39": None}


def vips(*args):
    subprocess.run(["vips", *map(str, args)], check=True, capture_output=True)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    root = tmp_path_factory.mktemp("colour")
    work = tmp_path_factory.mktemp("colour-work")
    # A colourful photo over 1024 px wide: the viewer tests' large photo, cropped.
    vips("crop", FIXTURES.parent / "gallery" / "large.jpg", work / "base.v", 600, 400, 1800, 1200)
    shutil.copy("/usr/share/color/icc/FOGRA39L.ti3", work / "fogra39.ti3")
    subprocess.run(["colprof", "-ql", "-D", "FOGRA39 (Argyll, from icc-profiles-free)", "fogra39"], cwd=work, check=True,
                   capture_output=True)
    references = {}
    for name, profile in PROFILES.items():
        profile = profile or work / "fogra39.icc"
        vips("icc_transform", work / "base.v", f"{root / name}.jpg[Q=95]", profile, "--input-profile", "srgb")
        vips("icc_transform", root / f"{name}.jpg", work / f"{name}-srgb.png", "srgb", "--embedded")
        references[name] = work / f"{name}-srgb.png"
    return root, references


@pytest.fixture(scope="module")
def server(photos):
    s = Server([str(photos[0]), "--access-log", "off", "--store-dir", "off"])
    yield s
    s.stop()


def png(server, url):
    response, body = server.get(url)
    assert response.status == 200, (url, response.status, body[:200])
    return Image.open(io.BytesIO(body))


def lab(image):
    """CIE L*a*b* (D65) of 8-bit sRGB pixels."""
    v = np.asarray(image.convert("RGB"), dtype=np.float64) / 255
    linear = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]])
    xyz = linear @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e2000(a, b):
    """Mean CIEDE2000 between two images of the same size."""
    return float(np.mean(delta_e2000_lab(lab(a), lab(b))))


def delta_e2000_lab(first, second):
    """CIEDE2000 of L*a*b* arrays (Sharma, Wu and Dalal's formulation)."""
    L1, a1, b1 = np.moveaxis(np.asarray(first, dtype=np.float64), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(second, dtype=np.float64), -1, 0)
    C = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    G = 0.5 * (1 - np.sqrt(C ** 7 / (C ** 7 + 25.0 ** 7)))
    a1p, a2p = a1 * (1 + G), a2 * (1 + G)
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dhp = h2p - h1p
    dhp = np.where(dhp > 180, dhp - 360, np.where(dhp < -180, dhp + 360, dhp))
    dhp = np.where(C1p * C2p == 0, 0, dhp)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dhp / 2))
    Lbp, Cbp = (L1 + L2) / 2, (C1p + C2p) / 2
    hsum = h1p + h2p
    hbp = np.where(np.abs(h1p - h2p) > 180, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2), hsum / 2)
    hbp = np.where(C1p * C2p == 0, hsum, hbp)
    T = (1 - 0.17 * np.cos(np.radians(hbp - 30)) + 0.24 * np.cos(np.radians(2 * hbp))
         + 0.32 * np.cos(np.radians(3 * hbp + 6)) - 0.20 * np.cos(np.radians(4 * hbp - 63)))
    SL = 1 + 0.015 * (Lbp - 50) ** 2 / np.sqrt(20 + (Lbp - 50) ** 2)
    SC, SH = 1 + 0.045 * Cbp, 1 + 0.015 * Cbp * T
    RT = (-2 * np.sqrt(Cbp ** 7 / (Cbp ** 7 + 25.0 ** 7)) * np.sin(np.radians(60 * np.exp(-(((hbp - 275) / 25) ** 2)))))
    return np.sqrt((dLp / SL) ** 2 + (dCp / SC) ** 2 + (dHp / SH) ** 2 + RT * (dCp / SC) * (dHp / SH))


def test_delta_e_of_the_formula_itself():
    """Pairs from Sharma, Wu and Dalal's test data, and identical images."""
    pairs = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425), ((50, 2.5, 0), (73, 25, -18), 27.1492),
             ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644)]
    got = delta_e2000_lab([p[0] for p in pairs], [p[1] for p in pairs])
    assert np.allclose(got, [p[2] for p in pairs], atol=1e-4), got
    photo = Image.new("RGB", (3, 3), (200, 40, 40))
    assert delta_e2000(photo, photo) == 0


@pytest.mark.parametrize("name", list(PROFILES))
def test_tagged_photos_match_libvips_conversion(server, photos, name):
    reference = Image.open(photos[1][name]).convert("RGB")
    info = server.json(f"/api/images/{name}")
    assert (info["width"], info["height"]) == reference.size
    tile = png(server, f"/images/{name}/tiles/{info['maxLevel']}/2/1.png")
    assert tile.size == (256, 256)
    full = delta_e2000(tile, reference.crop((512, 256, 768, 512)))
    assert full <= 1.0, f"{name}: full-resolution tile ΔE2000 {full:.2f}"
    scaled = png(server, f"/iiif/3/{name}/full/1024,/0/default.png")
    assert scaled.width == 1024
    expected = reference.resize(scaled.size, Image.Resampling.BOX)
    small = delta_e2000(scaled, expected)
    assert small <= 2.0, f"{name}: full/1024, ΔE2000 {small:.2f}"
    print(f"{name}: ΔE2000 full-resolution tile {full:.3f}, full/1024, {small:.3f}")
    # The numbers as stored, shown as sRGB, are far off: the comparison can fail.
    if name != "cmyk-fogra39":
        untagged = Image.open(photos[0] / f"{name}.jpg").convert("RGB").crop((512, 256, 768, 512))
        assert delta_e2000(untagged, reference.crop((512, 256, 768, 512))) > 2 * max(full, 0.5)


def test_an_untagged_photo_is_untouched(photos, tmp_path):
    """No profile, no conversion: a full-resolution PNG tile is libjpeg's own decode (djpeg), sample for sample, under
    either setting."""
    shutil.copy(FIXTURES / "baseline.jpg", tmp_path / "plain.jpg")
    decoded = subprocess.run(["djpeg", "-ppm", str(tmp_path / "plain.jpg")], check=True, capture_output=True).stdout
    own = Image.open(io.BytesIO(decoded)).convert("RGB").crop((256, 0, 512, 256))
    tiles = []
    for colour in ["convert", "keep"]:
        s = Server([str(tmp_path / "plain.jpg"), "--access-log", "off", "--store-dir", "off", "--colour", colour])
        try:
            level = s.json("/api/images/plain")["maxLevel"]
            tile = png(s, f"/images/plain/tiles/{level}/1/0.png")
            assert "icc_profile" not in tile.info
            assert tile.convert("RGB").tobytes() == own.tobytes(), colour
            tiles.append(s.get(f"/images/plain/tiles/{level}/1/0.jpg")[1])
        finally:
            s.stop()
    assert tiles[0] == tiles[1], "the JPEG tile is the same bytes under both settings"


def test_keep_embeds_the_profile_and_leaves_the_pixels(photos):
    root = photos[0]
    s = Server([str(root), "--access-log", "off", "--store-dir", "off", "--colour", "keep"])
    try:
        converted = Server([str(root), "--access-log", "off", "--store-dir", "off"])
        try:
            for name in ["prophoto", "adobe-rgb"]:
                embedded = Image.open(root / f"{name}.jpg").info["icc_profile"]
                info = s.json(f"/api/images/{name}")
                assert info["version"] != converted.json(f"/api/images/{name}")["version"], "another version: no tile mixes"
                for url in [f"/images/{name}/tiles/{info['maxLevel']}/0/0.jpg", f"/images/{name}/tiles/{info['maxLevel']}/0/0.png",
                            f"/iiif/3/{name}/full/300,/0/default.jpg", f"/iiif/3/{name}/full/300,/0/default.png",
                            f"/api/images/{name}/viewport.jpg?width=320&height=200"]:
                    kept = png(s, url)
                    assert kept.info.get("icc_profile") == embedded, url
                    assert "icc_profile" not in png(converted, url).info, url
                tile = png(s, f"/images/{name}/tiles/{info['maxLevel']}/0/0.png").convert("RGB")
                own = np.asarray(Image.open(root / f"{name}.jpg").convert("RGB").crop((0, 0, 256, 256)), dtype=np.int16)
                assert np.abs(np.asarray(tile, dtype=np.int16) - own).mean() <= 0.5, "the file's own numbers"
            # CMYK leaves as RGB pixels, which its profile cannot describe: converted either way.
            cmyk = png(s, "/images/cmyk-fogra39/tiles/8/0/0.png")
            assert "icc_profile" not in cmyk.info
        finally:
            converted.stop()
    finally:
        s.stop()


def test_build_keeps_the_profile_only_when_asked(photos, tmp_path):
    photo = photos[0] / "prophoto.jpg"
    embedded = Image.open(photo).info["icc_profile"]
    for colour, wanted in [("keep", embedded), ("convert", None)]:
        out = tmp_path / colour
        subprocess.run([binary(), "build", str(photo), "--out", str(out), "--colour", colour, "--quiet"], check=True)
        tiles = sorted((out / "prophoto_files").rglob("*.jpg"))
        assert tiles
        for tile in tiles[:: max(1, len(tiles) // 8)]:
            assert Image.open(tile).info.get("icc_profile") == wanted, (colour, tile)
