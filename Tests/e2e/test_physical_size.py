"""Physical size (issue 61): where a file says what a pixel measures in real units (a slide's microns per pixel, a
TIFF's resolution in centimetres or a scan's in inches, a scan's JFIF density), `/api/images` gives it as
`physical`, and IIIF info.json and the manifest's canvas carry the physical dimensions service; a camera's nominal
print size and software's "no idea" values (72 or 96 dpi, libvips' one pixel per millimetre) give nothing."""
import subprocess
import time

import numpy as np
import pytest
import tifffile
from PIL import Image

import slides
from conftest import Server

EXPECTED = {
    "section": slides.MPP / 1000,      # a slide: microns per pixel
    "micro": 10 / 40000,               # a TIFF at 40,000 pixels per centimetre: 0.25 µm
    "scan-tif": 25.4 / 1200,           # a TIFF scanned at 1200 dpi
    "scan": 25.4 / 600,                # a JPEG scanned at 600 dpi (JFIF density, no EXIF)
    "photo": None,                     # a camera's JPEG at 300 dpi: a print size, not what a pixel measures
    "plain-72": None,                  # 72 dpi: what software writes when it knows nothing
    "vips-default": None,              # libvips' one pixel per millimetre
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("physical") / "images"
    root.mkdir()
    slides.aperio(root / "section.svs", 1024, 768)
    pixels = slides.picture(600, 400)
    tifffile.imwrite(root / "micro.tif", pixels, resolution=(40000, 40000), resolutionunit="CENTIMETER", metadata=None)
    tifffile.imwrite(root / "scan-tif.tif", pixels, resolution=(1200, 1200), resolutionunit="INCH", metadata=None)
    tifffile.imwrite(root / "plain-72.tif", pixels, resolution=(72, 72), resolutionunit="INCH", metadata=None)
    tifffile.imwrite(root / "vips-default.tif", pixels, resolution=(10, 10), resolutionunit="CENTIMETER", metadata=None)
    Image.fromarray(pixels).save(root / "scan.jpg", dpi=(600, 600), quality=90)
    Image.fromarray(pixels).save(root / "photo.jpg", dpi=(300, 300), quality=90)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-ExposureTime=1/250", "-FNumber=8", "-XResolution=300",
                    "-YResolution=300", "-ResolutionUnit=inches", str(root / "photo.jpg")], check=True)
    server = Server([str(root), "--access-log", "off"])
    server.wait_for_index()
    yield server
    server.stop()


def test_each_image_says_what_a_pixel_measures_or_nothing(served):
    for image, scale in EXPECTED.items():
        entry = served.json(f"/api/images/{image}")
        if scale is None:
            assert "physical" not in entry, (image, entry.get("physical"))
        else:
            assert entry["physical"]["units"] == "mm" and entry["physical"]["scale"] == pytest.approx(scale, rel=1e-6), (image, entry)
    # Listings too, once the index has read the JPEG's header (a slide's and a TIFF's come with their header).
    deadline = time.monotonic() + 30
    while True:
        listed = {i["id"]: i.get("physical", {}).get("scale") for i in served.json("/api/images")["images"]}
        if listed["scan"] is not None or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    for image, scale in EXPECTED.items():
        assert (listed[image] is None) == (scale is None) and (scale is None or listed[image] == pytest.approx(scale, rel=1e-6)), (image, listed[image])


@pytest.mark.parametrize("image", EXPECTED)
def test_iiif_carries_the_physical_dimensions_service(served, image):
    scale = EXPECTED[image]
    info = served.json(f"/iiif/3/{image}/info.json")
    physdim = [s for s in info.get("service", []) if s.get("profile") == "http://iiif.io/api/annex/services/physdim"]
    canvas = served.json(f"/iiif/manifest/{image}")["items"][0]
    on_canvas = [s for s in canvas.get("service", []) if s.get("profile") == "http://iiif.io/api/annex/services/physdim"]
    if scale is None:
        assert physdim == [] and on_canvas == []
        return
    for service in (physdim, on_canvas):
        assert len(service) == 1 and service[0]["physicalUnits"] == "mm", service
        assert service[0]["physicalScale"] == pytest.approx(scale, rel=1e-6)
