"""Region, view and IIIF outputs draw their pixels from one budget (--render-memory-mb): large outputs are made
in bands and sent from a spooled file, a busy budget is 503 with Retry-After, and what cannot fit is refused."""
import io
import shutil
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from conftest import FIXTURES, Server

LARGE = FIXTURES.parent / "gallery" / "large.jpg"


def metric(server, name):
    _, body = server.get("/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(name + " missing")


@pytest.fixture(scope="module")
def tight():
    """A 16 MiB budget, a queue of 2 and a short wait, with more render threads than the budget serves."""
    s = Server([str(LARGE), str(FIXTURES / "wide-9024x3.jpg"), "--render-memory-mb", "16", "--render-queue", "2",
                "--render-wait", "0.5", "--workers", "12", "--cache-mb", "64", "--access-log", "off", "--max-zoom", "64"])
    yield s
    s.stop()


def test_a_full_max_image_larger_than_the_budget_is_made_in_bands(tight):
    response, body = tight.get("/iiif/3/large/full/max/0/default.jpg")
    assert response.status == 200, body[:200]
    assert int(response.getheader("Content-Length")) == len(body)
    image = Image.open(io.BytesIO(body))
    assert image.size == (3996, 2582)
    assert metric(tight, "tileserver_render_memory_peak_bytes") <= 16 << 20
    # The banded image is the image: compare with a small one the server makes whole.
    response, small = tight.get("/iiif/3/large/full/333,/0/default.png")
    assert response.status == 200
    reference = Image.open(io.BytesIO(small)).convert("RGB")
    ours = image.convert("RGB").resize(reference.size, Image.BOX)
    difference = sum(abs(p - q) for p, q in zip(ours.tobytes(), reference.tobytes()))
    assert difference / (reference.size[0] * reference.size[1] * 3) < 3


def test_rotated_mirrored_gray_png_in_bands(tight):
    response, body = tight.get("/iiif/3/large/0,0,1200,900/max/!90/gray.png")
    assert response.status == 200
    image = Image.open(io.BytesIO(body))
    assert image.size == (900, 1200) and image.mode == "L"
    response, whole = tight.get("/iiif/3/large/0,0,1200,900/max/0/gray.png")
    upright = Image.open(io.BytesIO(whole))
    expected = upright.transpose(Image.FLIP_LEFT_RIGHT).transpose(Image.ROTATE_270)
    assert image.tobytes() == expected.tobytes(), "bands, mirror and turn give the whole image's pixels"


def test_sixteen_concurrent_maximal_requests_are_200_or_503_and_the_server_stays_healthy(tight):
    urls = ["/iiif/3/large/full/max/0/default.jpg", "/iiif/3/large/full/2000,/90/default.png",
            "/iiif/3/large/pct:10,10,60,60/1800,/0/default.png", "/api/images/large/viewport.png?width=2048&height=2048"]

    def fetch(i):
        return tight.get(urls[i % len(urls)], timeout=300)

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(fetch, range(16)))
    statuses = [r.status for r, _ in results]
    assert set(statuses) <= {200, 503}, statuses
    assert statuses.count(200) >= 2, statuses
    for response, body in results:
        if response.status == 503:
            assert int(response.getheader("Retry-After")) >= 1
            assert "busy" in json.loads(body)["error"]
        else:
            Image.open(io.BytesIO(body)).verify()
    assert metric(tight, "tileserver_render_memory_peak_bytes") <= 16 << 20
    assert metric(tight, "tileserver_render_memory_bytes") == 0
    response, _ = tight.get("/healthz")
    assert response.status == 200
    response, _ = tight.get("/images/large/tiles/0/0/0.jpg")
    assert response.status == 200


def test_an_output_whose_single_row_exceeds_the_budget_is_refused_naming_the_limit(tight):
    response, body = tight.get("/iiif/3/wide-9024x3/full/^577536,1/0/default.png")
    assert response.status == 400
    error = json.loads(body)["error"]
    assert "render budget is 16 MB (--render-memory-mb)" in error, error


def test_head_of_a_spooled_image_announces_its_length_without_a_body(tight):
    response, body = tight.get("/iiif/3/large/full/max/0/default.jpg", method="HEAD")
    assert response.status == 200 and body == b""
    assert int(response.getheader("Content-Length")) > 100_000


def test_whole_decodes_larger_than_the_budget_are_refused_naming_it(tmp_path):
    """A progressive JPEG keeps every coefficient and an Adam7 PNG the whole image while they decode: that
    memory comes from the render budget, and a file needing more than all of it gets a JSON error saying so."""
    import subprocess
    subprocess.run(["vips", "black", str(tmp_path / "base.v"), "3000", "2200", "--bands", "3"], check=True)
    subprocess.run(["vips", "pngsave", str(tmp_path / "base.v"), str(tmp_path / "interlaced.png"), "--interlace"], check=True)
    subprocess.run(["vips", "jpegsave", str(tmp_path / "base.v"), str(tmp_path / "progressive.jpg"), "--interlace"], check=True)
    shutil.copy(FIXTURES / "progressive.jpg", tmp_path / "small-progressive.jpg")
    server = Server([str(tmp_path / "interlaced.png"), str(tmp_path / "progressive.jpg"), str(tmp_path / "small-progressive.jpg"),
                     "--render-memory-mb", "16", "--access-log", "off", "--raster-dir", str(tmp_path)])
    try:
        for image, kind in (("interlaced", "interlaced (Adam7) PNG"), ("progressive", "progressive JPEG")):
            response, body = server.get(f"/images/{image}/tiles/12/0/0.jpg")
            assert response.status == 500, (image, response.status)
            error = json.loads(body)["error"]
            assert kind in error and "the render budget is 16 MB (--render-memory-mb)" in error, error
        response, _ = server.get("/images/small-progressive/tiles/10/0/0.jpg")
        assert response.status == 200, "a progressive file within the budget decodes"
        deadline = time.monotonic() + 10
        while metric(server, "tileserver_render_memory_bytes") != 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # the pass holds its lease until its last row
        assert metric(server, "tileserver_render_memory_bytes") == 0
    finally:
        server.stop()
