"""Search that forgives accents and case, names in the order people count, and a search that finds nothing saying
so with a way back (issue 60, item 2), against the real server on files tagged with exiftool, and in Chromium."""
import shutil
import subprocess
from urllib.parse import quote

import pytest

from conftest import FIXTURES, Server

PHOTO = FIXTURES / "baseline.jpg"


def exiftool(path, *tags):
    subprocess.run(["exiftool", "-q", "-overwrite_original", *tags, str(path)], check=True)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("folding") / "photos"
    (root / "Noms").mkdir(parents=True)
    for name in ("Été à Paris (1)", "Portrait — Łódź", "IMG_10", "IMG_2", "img_1", "zebra"):
        shutil.copy(PHOTO, root / "Noms" / f"{name}.jpg")
    exiftool(root / "Noms" / "IMG_10.jpg", "-Keywords=Zoë", "-Creator=Jan Müller")
    exiftool(root / "Noms" / "IMG_2.jpg", "-XMP-dc:Description=Straße am Hafen")
    server = Server([str(root), "--access-log", "off"])
    server.wait_for_index()
    yield server
    server.stop()


def ids(server, q):
    return [i["id"] for i in server.json(f"/api/images?q={quote(q)}")["images"]]


def test_words_match_whatever_their_accents_and_case(served):
    assert ids(served, "zoe") == ids(served, "ZOË") == ["noms/img-10"]
    assert ids(served, "muller") == ["noms/img-10"]
    assert ids(served, "lodz") == ids(served, "Łódź") == ["noms/portrait-łódź"]
    assert ids(served, "strasse hafen") == ["noms/img-2"]
    assert ids(served, "ete paris") == ["noms/été-à-paris-1"]
    assert ids(served, "zoe lodz") == []


def test_names_sort_folded_with_digits_as_numbers(served):
    names = [i["name"] for i in served.json(f"/api/images?folder=noms&sort=name")["images"]]
    assert names == ["Été à Paris (1)", "img_1", "IMG_2", "IMG_10", "Portrait — Łódź", "zebra"], names
    backwards = [i["name"] for i in served.json(f"/api/images?folder=noms&sort=name&order=desc")["images"]]
    assert backwards == names[::-1]


def test_a_search_that_finds_nothing_says_so_with_the_way_back(served, browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"http://127.0.0.1:{served.port}/?folder=noms")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 6")
    page.fill("#search", "lighthouse")
    page.wait_for_function("location.search === '?q=lighthouse' && document.querySelector('#grid .empty') !== null")
    said = page.text_content("#grid .empty")
    assert "Nothing matches “lighthouse”" in said and "No images here yet" not in said, said
    page.fill("#search", "zoe")
    page.wait_for_function("document.querySelectorAll('#grid .cell').length === 1")
    assert page.eval_on_selector_all("#grid .cell", "c => c.map(x => x.dataset.id)") == ["noms/img-10"]
    page.fill("#search", "nothing here")
    page.wait_for_function("document.querySelector('#grid .empty')?.textContent.includes('nothing here')")
    page.click("#grid .empty button")
    page.wait_for_function("new URLSearchParams(location.search).get('folder') === 'noms' && document.querySelectorAll('#grid .cell').length === 6")
    assert errors == []
    context.close()
