"""Two files of one folder that would show the same name each show their extension, in the grid, the title bar and
the API; a file alone keeps its bare name (issue 60, item 3). Against the real server, in Chromium."""
import shutil

import pytest

from conftest import FIXTURES, Server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    (root / "card").mkdir()
    shutil.copy(FIXTURES / "baseline.jpg", root / "card" / "IMG_0001.jpg")
    shutil.copy(FIXTURES / "rgb.png", root / "card" / "IMG_0001.png")
    shutil.copy(FIXTURES / "baseline.jpg", root / "card" / "IMG_0002.jpg")
    server = Server([str(root), "--access-log", "off"])
    yield server
    server.stop()


def test_twins_show_their_extensions_where_people_look(served, browser):
    names = {i["id"]: i["name"] for i in served.json("/api/images?folder=card")["images"]}
    assert sorted(names.values()) == ["IMG_0001.jpg", "IMG_0001.png", "IMG_0002"], names
    png = next(i for i, n in names.items() if n == "IMG_0001.png")
    assert served.json(f"/api/images/{png.replace('/', '%2F')}")["name"] == "IMG_0001.png"
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"http://127.0.0.1:{served.port}/?folder=card")
    page.wait_for_function("document.querySelectorAll('#grid .cell.image').length === 3")
    shown = page.eval_on_selector_all("#grid .cell.image .name", "ns => ns.map(n => n.textContent)")
    assert sorted(shown) == ["IMG_0001.jpg", "IMG_0001.png", "IMG_0002"], shown
    page.click(f'#grid .cell[data-id="{png}"]')
    page.wait_for_function("window.tileViewer?.state.ready")
    assert page.text_content("#title") == "IMG_0001.png" and page.title() == "IMG_0001.png"
    page.close()
