"""Whole-slide images (issue 61): a slide OpenSlide knows is read through it, tile by tile from its nearest level,
with its pixels within two levels of OpenSlide's own at full size and at three reduced levels; its published facts
come from an allow-list, so nothing the scanner wrote of a patient reaches any answer; a plain tiled TIFF stays
with our own reader; a damaged slide, a DICOM file and hostile slides are refused with a reason, in bounded memory.
Slides are made here with tifffile; OpenSlide's pixels come through libvips' openslideload."""
import io
import json
import subprocess
from urllib.parse import quote

import numpy as np
import pytest
from PIL import Image

import slides
from conftest import Server, binary

WIDTH, HEIGHT = 3000, 2000          # DeepZoom levels 0..12; slide levels at 1, 4, 16 (DeepZoom 12, 10, 8)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("slides") / "slides"
    root.mkdir()
    slides.aperio(root / "section.svs", WIDTH, HEIGHT)
    slides.generic_tiff(root / "plain.tif", 1200, 800)
    data = (root / "section.svs").read_bytes()
    (root / "cut.svs").write_bytes(data[: len(data) * 2 // 5])
    slides.tile_offset_past_the_end(root / "section.svs", root / "offset.svs")
    slides.absurd_level(root / "section.svs", root / "absurd.svs")
    (root / "scan.dcm").write_bytes(bytes(128) + b"DICM" + bytes(200))
    return root


@pytest.fixture(scope="module")
def served(folder):
    server = Server([str(folder), "--access-log", "off", "--render-memory-mb", "256"])
    server.wait_for_index()
    yield server
    server.stop()


def reference(folder, level):
    """OpenSlide's own pixels of slide level `level`, whole, through libvips."""
    out = folder.parent / f"reference-{level}.png"
    if not out.exists():
        subprocess.run(["vips", "openslideload", str(folder / "section.svs"), str(out), "--level", str(level)],
                       check=True, capture_output=True)
    return Image.open(out).convert("RGB")


def tile(server, level, x, y):
    response, body = server.get(f"/images/section/tiles/{level}/{x}/{y}.png")
    assert response.status == 200, (level, x, y, response.status, body[:200])
    return np.asarray(Image.open(io.BytesIO(body)).convert("RGB"), dtype=np.int16)


def test_a_slide_is_read_through_openslide_with_its_facts_and_nothing_private(served):
    entry = served.json("/api/images/section")
    assert entry["source"] == "slide" and (entry["width"], entry["height"]) == (WIDTH, HEIGHT), entry
    facts = entry["slide"]
    assert facts["vendor"] == "aperio" and facts["objectivePower"] == 20, facts
    assert facts["micronsPerPixel"] == {"x": slides.MPP, "y": slides.MPP} and facts["scanDate"] == "12/29/09 09:59:15", facts
    assert served.json("/api/images/plain")["source"] == "tiff", "a plain tiled TIFF stays with our reader"
    answers = [json.dumps(entry)]
    for path in ("/api/images", "/api/images?folder=&sort=name", "/iiif/3/section/info.json", "/iiif/manifest/section",
                 "/iiif/collection", "/images/section.dzi", "/api/images?q=PATIENT", "/api/images?q=MRN-5555"):
        response, body = served.get(path)
        assert response.status == 200, (path, response.status)
        answers.append(body.decode())
    for answer in answers:
        for secret in slides.PRIVATE:
            assert secret not in answer, (secret, answer[:300])
    assert served.json("/api/images?q=PATIENT")["images"] == []


@pytest.mark.parametrize("level, x, y, slide_level, factor", [
    (12, 3, 2, 0, 1),     # full size: slide level 0
    (11, 2, 1, 0, 2),     # 1/2: level 0 reduced
    (10, 1, 0, 1, 1),     # 1/4: slide level 1 as it is
    (9, 0, 0, 1, 2),      # 1/8: slide level 1 reduced
], ids=["full", "half", "quarter", "eighth"])
def test_tiles_are_openslides_pixels(served, folder, level, x, y, slide_level, factor):
    got = tile(served, level, x, y)
    whole = reference(folder, slide_level)
    if factor > 1:
        whole = whole.reduce(factor)
    want = np.asarray(whole, dtype=np.int16)[y * 256:(y + 1) * 256, x * 256:(x + 1) * 256]
    assert got.shape == want.shape, (got.shape, want.shape)
    difference = np.abs(got - want).mean()
    print(f"level {level}: mean difference {difference:.2f}")
    assert difference <= 2.0, difference


def metric(server, name):
    _, body = server.get("/metrics")
    return int(next(line.split()[1] for line in body.decode().splitlines() if line.startswith(name + " ")))


def test_jpeg_tiles_on_the_slides_own_tiles_are_sent_as_the_scanner_wrote_them(served, folder):
    """Full size and 1/4 are levels of the slide with its 256-pixel JPEG tiles: those tiles go out as they are
    (counted as stored JPEGs), the same pixels as OpenSlide decodes; 1/2 is made and kept in the tile store."""
    before = metric(served, "tileserver_stored_jpeg_tiles_total")
    for level, x, y, slide_level in ((12, 4, 3, 0), (10, 1, 0, 1)):
        response, body = served.get(f"/images/section/tiles/{level}/{x}/{y}.jpg")
        assert response.status == 200
        got = np.asarray(Image.open(io.BytesIO(body)).convert("RGB"), dtype=np.int16)
        want = np.asarray(reference(folder, slide_level), dtype=np.int16)[y * 256:(y + 1) * 256, x * 256:(x + 1) * 256]
        assert got.shape == want.shape and np.abs(got - want).mean() <= 1.0, np.abs(got - want).mean()
    assert metric(served, "tileserver_stored_jpeg_tiles_total") == before + 2
    stored_before = metric(served, "tileserver_tiles_rendered_total")
    assert served.get("/images/section/tiles/11/2/2.jpg")[0].status == 200
    assert metric(served, "tileserver_tiles_rendered_total") == stored_before + 1


def test_broken_and_unreadable_slides_are_refused_with_a_reason(served):
    listed = {i["id"]: i for i in served.json("/api/images?limit=100")["images"]}
    assert "DICOM" in listed["scan"]["error"] and "OpenSlide 4" in listed["scan"]["error"], listed["scan"]
    for path in ("/images/cut/tiles/12/5/3.png", "/images/cut/tiles/8/0/0.png", "/api/images/cut"):
        response, body = served.get(path)
        if path.endswith("/cut") and response.status == 200:
            continue                                        # its header may read: its tiles say what is wrong
        assert response.status == 422, (path, response.status, body[:200])
        assert "cut.svs" in json.loads(body)["error"]
    # A tile past the end of the file, a level larger than the one above it: 422 naming the file, in bounded memory.
    for path in ("/images/offset/tiles/12/7/0.png", "/images/absurd/tiles/10/0/0.png", "/images/absurd/tiles/8/0/0.png"):
        response, body = served.get(path)
        assert response.status == 422, (path, response.status, body[:200])
        assert ".svs" in json.loads(body)["error"], body
    assert served.get("/images/section/tiles/12/0/0.png")[0].status == 200, "the good slide still works"
    with open(f"/proc/{served.process.pid}/status") as status:
        peak = next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmHWM"))
    assert peak < 256 + 300, peak


def jpeg(server, path, headers=None):
    response, body = server.get(path, headers=headers)
    return response.status, (Image.open(io.BytesIO(body)).convert("RGB") if response.status == 200 else json.loads(body))


def test_associated_images_are_listed_and_labels_withheld_by_default(served):
    listed = {a["name"]: a for a in served.json("/api/images/section")["slide"]["associated"]}
    assert set(listed) == {"thumbnail"}, listed
    status, thumbnail = jpeg(served, listed["thumbnail"]["url"])
    assert status == 200 and thumbnail.size == (listed["thumbnail"]["width"], listed["thumbnail"]["height"])
    for name in ("label", "macro"):
        status, answer = jpeg(served, f"/images/section/associated/{name}.jpg")
        assert status == 403 and "patient" in answer["error"] and "slide_labels" in answer["error"], (name, answer)
    assert jpeg(served, "/images/section/associated/barcode.jpg")[0] == 404
    assert jpeg(served, "/images/plain/associated/label.jpg")[0] == 404


def test_slide_labels_on_without_an_access_file_serves_the_label(folder):
    server = Server([str(folder), "--access-log", "off", "--slide-labels", "on"])
    try:
        server.wait_for_index()
        names = {a["name"] for a in server.json("/api/images/section")["slide"]["associated"]}
        assert names == {"thumbnail", "label", "macro"}, names
        status, label = jpeg(server, "/images/section/associated/label.jpg")
        assert status == 200 and label.size == (300, 200)
        pixels = np.asarray(label, dtype=np.int16)
        assert pixels[100, 150].max() < 40 and pixels[10, 10].min() > 220, "the label's bars, on white"
    finally:
        server.stop()


def test_the_access_file_decides_labels_per_folder_and_associated_images_follow_the_image(folder, tmp_path):
    root = tmp_path / "library"
    for name in ("teaching", "clinic", "private"):
        (root / name).mkdir(parents=True)
        (root / name / "section.svs").symlink_to(folder / "section.svs")
    access = tmp_path / "access.toml"
    access.write_text('[folder."teaching"]\nslide_labels = true\n\n[folder."private"]\nview = "restricted"\ngroups = ["staff"]\n'
                      'slide_labels = true\n')
    refused = subprocess.run([binary(), "serve", str(root), "--access", str(access),
                              "--slide-labels", "on"], capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "slide_labels = true" in refused.stderr, refused.stderr
    server = Server([str(root), "--access-log", "off", "--access", str(access)])
    try:
        server.wait_for_index()
        assert jpeg(server, "/images/teaching%2Fsection/associated/label.jpg")[0] == 200
        assert jpeg(server, "/images/clinic%2Fsection/associated/label.jpg")[0] == 403
        assert jpeg(server, "/images/clinic%2Fsection/associated/thumbnail.jpg")[0] == 200
        for name in ("label", "thumbnail"):
            assert jpeg(server, f"/images/private%2Fsection/associated/{name}.jpg")[0] == 401, "the image's own rule first"
    finally:
        server.stop()
