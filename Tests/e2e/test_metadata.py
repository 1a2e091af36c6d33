"""What a photo says about itself, written with exiftool (EXIF, IPTC-IIM and XMP in a JPEG; EXIF and XMP in a PNG),
against the real server: every field in /api/images/{id}, the IIIF manifest (validated by iiif-prezi3), and the
viewer's info panel in Chromium; the GPS position only with --publish-location on; none of it in any tile or image."""
import io
import json
import shutil
import subprocess

import pytest
from iiif_prezi3 import Manifest
from PIL import Image

from conftest import FIXTURES, ROOT, Server

ARTIFACTS = ROOT / "artifacts"

FIELDS = [
    "-codedcharacterset=utf8",
    "-XMP-dc:Title=Glacier at dawn", "-XMP-dc:Description=Ice & light — Vatnajökull", "-XMP-dc:Creator=Anna Jónsdóttir",
    "-XMP-photoshop:Credit=Studio Norður", "-XMP-dc:Rights=© 2024 Anna Jónsdóttir",
    "-XMP-cc:License=https://creativecommons.org/licenses/by/4.0/", "-XMP-dc:Subject=glacier", "-XMP-dc:Subject=Iceland",
    "-EXIF:Make=Canon", "-EXIF:Model=Canon EOS R5", "-EXIF:LensModel=RF24-70mm F2.8 L IS USM",
    "-EXIF:DateTimeOriginal=2024:06:01 06:30:00", "-EXIF:OffsetTimeOriginal=+02:00", "-EXIF:ExposureTime=1/250",
    "-EXIF:FNumber=8", "-EXIF:ISO=100", "-EXIF:FocalLength=35",
    "-EXIF:GPSLatitude=64.0485", "-EXIF:GPSLatitudeRef=N", "-EXIF:GPSLongitude=16.179", "-EXIF:GPSLongitudeRef=W",
    "-EXIF:GPSAltitude=120", "-EXIF:GPSAltitudeRef=0",
]
IPTC = ["-IPTC:ObjectName=IPTC title (XMP wins)", "-IPTC:Caption-Abstract=IPTC caption", "-IPTC:Keywords=iptc-only"]
EXPECTED = {
    "title": "Glacier at dawn", "description": "Ice & light — Vatnajökull", "creators": ["Anna Jónsdóttir"],
    "credit": "Studio Norður", "copyright": "© 2024 Anna Jónsdóttir", "licence": "https://creativecommons.org/licenses/by/4.0/",
    "keywords": ["glacier", "Iceland"], "dateTaken": "2024-06-01T06:30:00+02:00", "make": "Canon", "model": "Canon EOS R5",
    "lens": "RF24-70mm F2.8 L IS USM", "exposureTime": "1/250", "fNumber": 8, "iso": 100, "focalLength": 35,
}
PLACE = {"latitude": 64.0485, "longitude": -16.179, "altitude": 120}


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    root = tmp_path_factory.mktemp("metadata")
    shutil.copy(FIXTURES / "baseline.jpg", root / "glacier.jpg")
    shutil.copy(FIXTURES / "rgb.png", root / "harbour.png")
    shutil.copy(FIXTURES / "gray.jpg", root / "plain.jpg")
    subprocess.run(["exiftool", "-q", "-overwrite_original", *FIELDS, *IPTC, str(root / "glacier.jpg")], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", *FIELDS, str(root / "harbour.png")], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-all=", str(root / "plain.jpg")], check=True)
    return root


@pytest.fixture(scope="module")
def private(photos):
    s = Server([str(photos), "--access-log", "off"])
    yield s
    s.stop()


@pytest.fixture(scope="module")
def public(photos):
    s = Server([str(photos), "--access-log", "off", "--publish-location", "on"])
    yield s
    s.stop()


@pytest.mark.parametrize("image", ["glacier", "harbour"])
def test_every_field_reaches_the_api_and_location_only_when_published(private, public, image):
    hidden = private.json(f"/api/images/{image}")["metadata"]
    assert hidden == EXPECTED
    shown = public.json(f"/api/images/{image}")["metadata"]
    assert shown == {**EXPECTED, "location": PLACE}
    assert public.json("/api/images/plain")["metadata"] == {}
    assert "metadata" not in public.json("/api/images")["images"][0], "listings stay header-only"


def test_the_manifest_carries_the_fields_as_presentation_3_intends(private, public):
    doc = private.json("/iiif/manifest/glacier")
    Manifest(**doc)
    assert doc["@context"] == "http://iiif.io/api/presentation/3/context.json"
    assert doc["label"] == {"none": ["Glacier at dawn"]}
    assert doc["summary"] == {"none": ["Ice & light — Vatnajökull"]}
    pairs = {p["label"]["en"][0]: p["value"]["none"][0] for p in doc["metadata"]}
    assert pairs == {"Creator": "Anna Jónsdóttir", "Date taken": "2024-06-01T06:30:00+02:00", "Keywords": "glacier, Iceland",
                     "Credit": "Studio Norður", "Copyright": "© 2024 Anna Jónsdóttir",
                     "Licence": "https://creativecommons.org/licenses/by/4.0/", "Camera": "Canon EOS R5",
                     "Lens": "RF24-70mm F2.8 L IS USM", "Exposure": "1/250 s · f/8 · ISO 100 · 35 mm"}
    assert doc["requiredStatement"]["value"] == {"none": ["Studio Norður", "© 2024 Anna Jónsdóttir"]}
    assert doc["rights"] == "http://creativecommons.org/licenses/by/4.0/"
    assert doc["navDate"] == "2024-06-01T04:30:00Z"
    assert "navPlace" not in doc and "Location" not in pairs
    assert "64.04" not in json.dumps(doc)

    placed = public.json("/iiif/manifest/glacier")
    Manifest(**placed)
    assert placed["@context"] == ["http://iiif.io/api/extension/navplace/context.json", "http://iiif.io/api/presentation/3/context.json"]
    [feature] = placed["navPlace"]["features"]
    assert placed["navPlace"]["type"] == "FeatureCollection" and feature["type"] == "Feature"
    assert feature["geometry"] == {"type": "Point", "coordinates": [-16.179, 64.0485]}

    plain = public.json("/iiif/manifest/plain")
    Manifest(**plain)
    assert plain["label"] == {"none": ["plain"]}
    assert not {"summary", "metadata", "requiredStatement", "rights", "navDate", "navPlace"} & set(plain)


def test_no_tile_or_image_carries_any_of_it(public):
    urls = ["/images/glacier/tiles/10/0/0.jpg", "/images/glacier/tiles/8/0/0.jpg", "/iiif/3/glacier/full/max/0/default.jpg",
            "/iiif/3/glacier/full/200,/0/default.png", "/api/images/glacier/viewport.jpg?width=300&height=200",
            "/images/harbour/tiles/8/0/0.jpg", "/iiif/3/harbour/full/max/0/default.png"]
    for url in urls:
        response, body = public.get(url)
        assert response.status == 200, url
        for marker in [b"Exif", b"http://ns.adobe.com/xap", b"Photoshop 3.0", b"Canon", "Jónsdóttir".encode(), b"eXIf", b"iTXt"]:
            assert marker not in body, (url, marker)
        Image.open(io.BytesIO(body)).load()


@pytest.mark.parametrize("width,height,name", [(1280, 800, "info-panel.png"), (390, 844, "info-panel-phone.png")])
def test_the_viewer_shows_an_info_panel(browser, private, public, width, height, name):
    for server, placed in [(private, False), (public, True)]:
        page = browser.new_page(viewport={"width": width, "height": height})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{server.port}/#image=glacier")
        page.wait_for_function("window.tileViewer && window.tileViewer.state.ready && window.tileViewer.state.image === 'glacier'")
        assert page.is_hidden("#info")
        page.keyboard.press("i")
        page.wait_for_selector("#info dl")
        text = page.inner_text("#info")
        for value in ["Glacier at dawn", "Ice & light — Vatnajökull", "Anna Jónsdóttir", "Studio Norður", "© 2024 Anna Jónsdóttir",
                      "glacier, Iceland", "Canon EOS R5", "RF24-70mm F2.8 L IS USM", "1/250 s · f/8 · ISO 100 · 35 mm", "2024"]:
            assert value in text, (value, text)
        assert ("64.04850, -16.17900" in text) == placed
        maps = page.eval_on_selector_all("#info a[href^='https://www.openstreetmap.org/']", "as => as.map(a => [a.href, a.rel])")
        assert maps == ([["https://www.openstreetmap.org/?mlat=64.04850&mlon=-16.17900#map=15/64.04850/-16.17900",
                          "noopener noreferrer"]] if placed else []), maps
        box = page.locator("#info").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, "the panel fits the window"
        if not placed:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / name))
        page.keyboard.press("Escape")
        assert page.is_hidden("#info")
        page.click("#show-info")
        page.wait_for_selector("#info", state="visible")
        page.click("#info .close")
        assert page.is_hidden("#info") and errors == []
        page.close()
