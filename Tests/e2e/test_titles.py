"""A photo's own title is its name (issue 60, item 8): XMP dc:title or IPTC Object Name names it in listings, the
single image's answer, search results, IIIF collections, the grid, the title bar and the share sheet, and sorts it
by name (folded, digits as numbers); the file name is in the info panel; `--names file` keeps file names; and a
title is never told to who may not see the photo. Against the real server on files tagged with exiftool, and in
Chromium on a 1440 × 900 desktop and a 390 × 844 phone at device-pixel ratio 3."""
import shutil
import subprocess

import pytest

from conftest import ARTIFACTS, DESKTOP, FIXTURES, PHONE, Server, binary, viewer_page

PHOTO = FIXTURES / "baseline.jpg"
SHOWN = ["Anchored boats", "gm_00010703", "Harbour with sailing ships", "IMG_2", "IMG_10"]
FILES = ["gm_00010701", "gm_00010702", "gm_00010703", "IMG_2", "IMG_10"]


def exiftool(path, *tags):
    subprocess.run(["exiftool", "-q", "-overwrite_original", *tags, str(path)], check=True)


def library(root):
    (root / "harbour").mkdir(parents=True)
    for name in FILES:
        shutil.copy(PHOTO, root / "harbour" / f"{name}.jpg")
    exiftool(root / "harbour" / "gm_00010701.jpg", "-XMP-dc:Title=Harbour with sailing ships")
    exiftool(root / "harbour" / "gm_00010702.jpg", "-IPTC:ObjectName=Anchored boats")
    exiftool(root / "harbour" / "gm_00010703.jpg", "-XMP-dc:Title=   ")               # blank: no title
    (root / "private").mkdir()
    shutil.copy(PHOTO, root / "private" / "gm_secret.jpg")
    exiftool(root / "private" / "gm_secret.jpg", "-XMP-dc:Title=Minutes of the secret meeting")
    return root


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = library(tmp_path_factory.mktemp("titles") / "photos")
    access = root.parent / "access.toml"
    access.write_text('[folder."private"]\nview = "restricted"\ngroups = ["staff"]\n')
    users = root.parent / "users"
    subprocess.run([binary(), "user", "add", "alice", "--group", "staff", "--users", str(users)], input="pw\n", text=True, check=True)
    server = Server([str(root), "--access-log", "off", "--access", str(access), "--users", str(users)])
    server.wait_for_index()
    yield server
    server.stop()


def names(server, path):
    return [i["name"] for i in server.json(path)["images"]]


def test_titles_name_and_sort_photos_everywhere_a_name_is_read(served):
    assert names(served, "/api/images?folder=harbour&sort=name") == SHOWN
    assert names(served, "/api/images?folder=harbour&sort=name&order=desc") == SHOWN[::-1]
    one = served.json("/api/images/harbour%2Fgm-00010701")
    assert one["name"] == "Harbour with sailing ships" and one["file"] == "gm_00010701.jpg", one
    listed = {i["id"]: i for i in served.json("/api/images?folder=harbour&sort=name")["images"]}
    assert listed["harbour/gm-00010702"]["file"] == "gm_00010702.jpg"
    assert names(served, "/api/images?q=sailing") == ["Harbour with sailing ships"]
    labels = [item["label"]["none"][0] for item in served.json("/iiif/collection/harbour")["items"]]
    assert sorted(labels) == sorted(SHOWN), labels
    assert served.json("/iiif/manifest/harbour%2Fgm-00010702")["label"]["none"] == ["Anchored boats"]


def test_a_title_is_not_told_to_who_may_not_see_the_photo(served):
    for path in ["/api/images?folder=private", "/api/images?folder=private&sort=name", "/iiif/collection/private",
                 "/api/images?folder=private&sort=taken"]:
        response, body = served.get(path)
        assert response.status == 200 and b"secret meeting" not in body and b"gm_secret" in body, (path, body[:300])


def test_names_file_keeps_file_names(tmp_path):
    root = library(tmp_path / "photos")
    server = Server([str(root), "--access-log", "off", "--names", "file"])
    try:
        server.wait_for_index()
        assert names(server, "/api/images?folder=harbour&sort=name") == FILES
        assert server.json("/api/images/harbour%2Fgm-00010701")["name"] == "gm_00010701"
    finally:
        server.stop()


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_viewer_shows_titles_and_the_info_panel_the_file(served, browser, device):
    label = "phone" if device is PHONE else "desktop"
    context, page = viewer_page(browser, device)
    errors = page.errors
    page.goto(f"http://127.0.0.1:{served.port}/?folder=harbour")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 5")
    assert page.eval_on_selector_all("#grid .cell .name", "c => c.map(x => x.textContent)") == SHOWN
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"titles-grid-{label}.png"))
    page.click("#grid .cell[data-id='harbour/gm-00010701']")
    page.wait_for_function("window.tileViewer?.state.image === 'harbour/gm-00010701' && window.tileViewer.state.ready")
    assert page.text_content("#title") == "Harbour with sailing ships"
    assert page.evaluate("document.title") == "Harbour with sailing ships"        # what the share sheet is given
    page.click("#show-info")
    page.wait_for_function("document.querySelector('#info .body dl') !== null")
    assert page.text_content("#info h2") == "Harbour with sailing ships"
    rows = page.eval_on_selector_all("#info dt", "d => d.map(x => [x.textContent, x.nextElementSibling.textContent])")
    assert ["File", "gm_00010701.jpg"] in rows, rows
    page.screenshot(path=str(ARTIFACTS / f"titles-info-{label}.png"))
    page.goto(f"http://127.0.0.1:{served.port}/?q=boats")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 1")
    assert page.text_content("#grid .cell .name") == "Anchored boats"
    assert errors == [], errors
    context.close()
