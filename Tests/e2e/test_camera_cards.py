"""Camera cards, one photo per shot (issue 60, item 3): a JPEG beside its camera raw is one photo with the raw as
a second download ("Original RAW"); an XMP sidecar lends its title, keywords and rating; a raw alone is listed as
"RAW without a preview" with the reason, not as a broken file. Against the real server on files written here
(the raws are TIFF-structured, as CR2 and NEF are), and in Chromium on a desktop and a DPR-3 phone."""
import shutil
import subprocess
import time
from urllib.parse import quote

import pytest

from conftest import ARTIFACTS, DESKTOP, FIXTURES, PHONE, Server, viewer_page

PHOTO = FIXTURES / "baseline.jpg"


def sidecar(title, keywords=(), rating=None):
    bag = "".join(f"<rdf:li>{k}</rdf:li>" for k in keywords)
    stars = f' xmp:Rating="{rating}"' if rating is not None else ""
    return f"""<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"{stars}>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{title}</rdf:li></rdf:Alt></dc:title>
<dc:subject><rdf:Bag>{bag}</rdf:Bag></dc:subject>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("card") / "photos"
    card = root / "card"
    card.mkdir(parents=True)
    raw = tmp_path_factory.mktemp("raw") / "raw.tif"
    subprocess.run(["vips", "copy", str(PHOTO), str(raw)], check=True)
    shutil.copy(PHOTO, card / "IMG_0001.JPG")
    shutil.copy(raw, card / "IMG_0001.CR2")
    shutil.copy(PHOTO, card / "IMG_0002.JPG")
    (card / "IMG_0002.xmp").write_text(sidecar("Pier at dawn", ["pier", "dawn"], 4))
    shutil.copy(raw, card / "IMG_0003.CR2")
    (card / "IMG_0003.CR2.xmp").write_text(sidecar("Raw only"))
    server = Server([str(root), "--access-log", "off"])
    server.wait_for_index()
    server.card = card
    yield server
    server.stop()


def listing(server):
    return {i["id"]: i for i in server.json("/api/images?folder=card&sort=name")["images"]}


def test_a_shot_is_one_photo_its_raw_a_second_download_its_sidecar_its_words(served):
    images = listing(served)
    assert sorted(images) == ["card/img-0001", "card/img-0002", "card/img-0003"], sorted(images)
    first = images["card/img-0001"]
    assert "error" not in first and first["raw"] == "/images/card%2Fimg-0001/raw" and first["file"] == "IMG_0001.JPG", first
    response, body = served.get(first["raw"])
    assert response.status == 200 and body == (served.card / "IMG_0001.CR2").read_bytes()
    assert "IMG_0001.CR2" in response.getheader("Content-Disposition")

    second = images["card/img-0002"]
    assert second["name"] == "Pier at dawn" and "raw" not in second, second
    metadata = served.json("/api/images/card%2Fimg-0002")["metadata"]
    assert metadata["title"] == "Pier at dawn" and metadata["keywords"] == ["pier", "dawn"] and metadata["rating"] == 4, metadata
    assert [i["id"] for i in served.json("/api/images?q=pier")["images"]] == ["card/img-0002"]
    response, _ = served.get("/images/card%2Fimg-0002/raw")
    assert response.status == 404

    alone = images["card/img-0003"]
    assert alone["rawOnly"] is True and alone["error"].startswith("RAW without a preview: Canon raw files are not decoded here"), alone
    assert alone["name"] == "Raw only" and alone["raw"] == "/images/card%2Fimg-0003/raw"
    response, body = served.get(alone["raw"])
    assert response.status == 200 and body == (served.card / "IMG_0003.CR2").read_bytes()


def test_a_changed_sidecar_is_read_again(served, tmp_path):
    (served.card / "IMG_0002.xmp").write_text(sidecar("Pier at noon", ["pier"], 5))
    deadline = time.time() + 30
    while listing(served)["card/img-0002"]["name"] != "Pier at noon" and time.time() < deadline:
        time.sleep(0.5)
    assert listing(served)["card/img-0002"]["name"] == "Pier at noon"
    assert served.json("/api/images/card%2Fimg-0002")["metadata"]["rating"] == 5


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_grid_shows_one_cell_per_shot_and_offers_the_raw(served, browser, device):
    label = "phone" if device is PHONE else "desktop"
    context, page = viewer_page(browser, device)
    errors = page.errors
    page.goto(f"http://127.0.0.1:{served.port}/?folder=card")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 3")
    assert page.locator("#grid .cell.broken-file").count() == 0
    raw_cell = page.locator("#grid .cell.raw-only")
    assert raw_cell.count() == 1 and "RAW without a preview" in raw_cell.inner_text()
    assert "not decoded here" in raw_cell.get_attribute("title")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"camera-card-grid-{label}.png"))
    page.click("#grid .cell[data-id='card/img-0001']")
    page.wait_for_function("window.tileViewer?.state.image === 'card/img-0001' && window.tileViewer.state.ready")
    page.click("#show-info")
    raw_link = page.locator("#info-raw")
    raw_link.wait_for(state="visible")
    assert raw_link.get_attribute("href") == "/images/card%2Fimg-0001/raw" and raw_link.inner_text() == "Original RAW"
    assert errors == [], errors
    context.close()


def test_a_hostile_sidecar_is_read_as_saying_nothing(tmp_path):
    """A sidecar of random bytes, of unclosed XML, or larger than any packet: the photo is listed and shown as if it
    had none, the server unharmed."""
    import os
    folder = tmp_path / "photos"
    folder.mkdir()
    for name, body in {"garbage": os.urandom(3 << 20), "unclosed": b"<x:xmpmeta><rdf:RDF><rdf:Description dc:title=\"" * 5000,
                       "empty": b""}.items():
        shutil.copy(PHOTO, folder / f"{name}.jpg")
        (folder / f"{name}.xmp").write_bytes(body)
    server = Server([str(folder), "--access-log", "off"])
    try:
        server.wait_for_index()
        names = sorted(i["name"] for i in server.json("/api/images?sort=name")["images"])
        # What an unclosed packet's attribute runs on to is its text as written, one line of at most 200 characters.
        assert len(names) == 3 and {"empty", "garbage"} <= set(names) and all(len(n) <= 200 for n in names), names
        for image in ["empty", "garbage", "unclosed"]:
            assert server.json(f"/api/images/{image}")["width"] == 701
    finally:
        server.stop()
