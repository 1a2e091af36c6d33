"""The browser viewer in headless Chromium (Debian's, driven by Playwright) against the real server."""
import io
import json
from urllib.request import urlopen

import pytest

from conftest import FIXTURES, ROOT, Server

from PIL import Image, ImageStat

ARTIFACTS = ROOT / "artifacts"
GALLERY = FIXTURES.parent / "gallery"
IMAGES = [GALLERY / "large.jpg", FIXTURES / "baseline.jpg", FIXTURES / "rgb.png", FIXTURES / "gray.jpg"]


@pytest.fixture(scope="module")
def gallery():
    s = Server([str(p) for p in IMAGES] + ["--access-log", "off"])
    yield s
    s.stop()


class Session:
    """A page on the viewer that records tile requests and fails on any error response."""

    def __init__(self, browser, server, width=1280, height=800, path="/"):
        self.server = server
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.tiles = []
        self.errors = []
        self.page.on("request", lambda r: "/tiles/" in r.url and self.tiles.append(r.url.split(f":{server.port}", 1)[1]))
        self.page.on("response", lambda r: r.status >= 400 and self.errors.append((r.status, r.url)))
        self.page.on("pageerror", lambda e: self.errors.append(("script", str(e))))
        self.page.goto(f"http://127.0.0.1:{server.port}{path}")
        self.settle()
        # The picture area: the window less the top and gallery bars, which never cover the photo at fit.
        self.left, self.top, self.vw, self.vh = self.page.evaluate(
            "(() => { const r = document.getElementById('viewer').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()")

    def state(self):
        return self.page.evaluate("window.tileViewer.state")

    def settle(self):
        self.page.wait_for_function("window.tileViewer && window.tileViewer.state.ready && window.tileViewer.state.pending === 0",
                                    timeout=30_000)
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_timeout(250)
        self.page.wait_for_function("window.tileViewer.state.pending === 0", timeout=30_000)

    def to_image(self, x, y):
        """The image point under page point (x, y)."""
        return self.page.evaluate(f"window.tileViewer.toImage({x - self.left}, {y - self.top})")

    def api(self, path):
        with urlopen(f"http://127.0.0.1:{self.server.port}{path}") as r:
            return json.loads(r.read())

    def screenshot(self, name):
        ARTIFACTS.mkdir(exist_ok=True)
        data = self.page.screenshot(path=str(ARTIFACTS / name))
        return Image.open(io.BytesIO(data)).convert("RGB")

    def close(self):
        assert self.errors == [], self.errors
        self.page.close()


def mean_colour(image, box=None):
    return ImageStat.Stat(image.crop(box) if box else image).mean


def test_first_view_requests_exactly_what_viewport_lists(browser, gallery):
    s = Session(browser, gallery)
    state = s.state()
    assert state["image"] == "large" and state["width"] == s.vw == 1280 and state["height"] == s.vh == 800 - 56 - 60
    # The viewer asks for its tiles in the format the store keeps (JPEG here): none is transcoded.
    v = s.api(f"/api/images/large/viewport?width={s.vw}&height={s.vh}&format=jpg&dpr=1")
    assert state["zoom"] == pytest.approx(v["zoom"]) and state["level"] == v["level"] and state["fit"] and v["fit"]
    # At fit the browser fetches what is on screen and the thumbnail under it, nothing more (the server warms
    # the next level in its own cache).
    thumbnail = next(i for i in s.api("/api/images?folder=")["images"] if i["id"] == "large")["thumbnail"]
    requested = {u for u in s.tiles if u.startswith("/images/large/")}   # versioned URLs, as the API hands out
    assert requested == {t["url"] for t in v["tiles"]} | {thumbnail}, requested
    shot = s.screenshot("first-view.png")
    # the picture area is not blank and has the image's colours
    inset = v["inset"]
    box = (int(inset["left"]) + 2, int(inset["top"]) + 2, int(s.vw - inset["right"]) - 2, int(s.vh - inset["bottom"]) - 2)
    ours = mean_colour(shot, (box[0], box[1] + s.top, box[2], box[3] + s.top))
    with urlopen(f"http://127.0.0.1:{gallery.port}/api/images/large/viewport.png?width={s.vw}&height={s.vh}") as r:
        reference = Image.open(io.BytesIO(r.read())).convert("RGB")
    theirs = mean_colour(reference, box)
    assert max(abs(a - b) for a, b in zip(ours, theirs)) < 8, (ours, theirs)
    assert max(ImageStat.Stat(shot.crop(box)).stddev) > 10, "the view is not a flat colour"
    s.close()


def test_drag_moves_the_centre_by_distance_over_zoom(browser, gallery):
    s = Session(browser, gallery, path="/#image=large&zoom=0.5&cx=2000&cy=1300")
    before = s.state()
    assert before["zoom"] == pytest.approx(0.5)
    s.page.mouse.move(640, 400)
    s.page.mouse.down()
    s.page.mouse.move(540, 350, steps=8)
    s.page.mouse.up()
    s.settle()
    after = s.state()
    assert after["cx"] == pytest.approx(before["cx"] + 100 / 0.5, abs=0.5)
    assert after["cy"] == pytest.approx(before["cy"] + 50 / 0.5, abs=0.5)
    s.close()


def test_double_click_lands_where_zoomrect_says(browser, gallery):
    s = Session(browser, gallery)
    before = s.state()
    point = s.to_image(700, 420)
    expected = s.api(f"/api/images/large/zoomrect?width={s.vw}&height={s.vh}&zoom={before['zoom']}&x={point['x']}&y={point['y']}")
    s.page.mouse.dblclick(700, 420)
    s.settle()
    after = s.state()
    assert after["zoom"] == pytest.approx(expected["zoom"], rel=1e-6)
    assert after["cx"] == pytest.approx(expected["viewport"]["center"]["x"], abs=0.01)
    assert after["cy"] == pytest.approx(expected["viewport"]["center"]["y"], abs=0.01)
    s.page.keyboard.down("Shift")
    s.page.mouse.dblclick(700, 420)
    s.page.keyboard.up("Shift")
    s.settle()
    assert s.state()["zoom"] == pytest.approx(before["zoom"], rel=1e-6), "shift+double-click zooms back out"
    s.close()


def test_wheel_zoom_keeps_the_point_under_the_cursor(browser, gallery):
    s = Session(browser, gallery, path="/#image=large&zoom=0.4&cx=2000&cy=1300")
    before_point = s.to_image(500, 300)
    zoom = s.state()["zoom"]
    s.page.mouse.move(500, 300)
    s.page.mouse.wheel(0, -200)
    s.settle()
    after = s.state()
    assert after["zoom"] > zoom * 1.3
    after_point = s.to_image(500, 300)
    assert after_point["x"] == pytest.approx(before_point["x"], abs=1.0)
    assert after_point["y"] == pytest.approx(before_point["y"], abs=1.0)
    s.screenshot("deep-zoom-wheel.png")
    s.close()


def test_resize_refits_and_keeps_the_centre(browser, gallery):
    s = Session(browser, gallery)
    s.page.set_viewport_size({"width": 800, "height": 600})
    s.page.wait_for_timeout(300)
    s.settle()
    v = s.api(f"/api/images/large/viewport?width=800&height={600 - 56 - 60}")
    state = s.state()
    assert state["width"] == 800 and state["height"] == 600 - 56 - 60 and state["zoom"] == pytest.approx(v["zoom"])
    s.page.goto(f"http://127.0.0.1:{gallery.port}/#image=large&zoom=0.5&cx=1000&cy=900")
    s.settle()
    s.page.set_viewport_size({"width": 1000, "height": 700})
    s.page.wait_for_timeout(300)
    s.settle()
    state = s.state()
    assert state["zoom"] == pytest.approx(0.5) and state["cx"] == pytest.approx(1000, abs=0.01) and state["cy"] == pytest.approx(900, abs=0.01)
    s.close()


def test_hash_restores_the_view_after_reload(browser, gallery):
    s = Session(browser, gallery)
    s.page.focus("#viewer")
    s.page.keyboard.press("+")
    s.page.keyboard.press("ArrowRight")
    s.page.keyboard.press("ArrowDown")
    s.settle()
    s.page.wait_for_timeout(300)
    before = s.state()
    assert "zoom=" in s.page.url and "cx=" in s.page.url
    s.page.reload()
    s.settle()
    after = s.state()
    assert after["image"] == before["image"]
    assert after["zoom"] == pytest.approx(before["zoom"], rel=1e-6)
    assert after["cx"] == pytest.approx(before["cx"], abs=0.01) and after["cy"] == pytest.approx(before["cy"], abs=0.01)
    s.close()


def test_keyboard_fit_and_native(browser, gallery):
    s = Session(browser, gallery)
    s.page.focus("#viewer")
    s.page.keyboard.press("1")
    s.settle()
    assert s.state()["zoom"] == 1
    s.page.keyboard.press("0")
    s.settle()
    assert s.state()["zoom"] == pytest.approx(s.api(f"/api/images/large/viewport?width={s.vw}&height={s.vh}")["zoom"])
    s.close()


def test_paging_loads_the_next_image_and_drops_far_pages(browser, gallery):
    s = Session(browser, gallery)
    assert s.page.evaluate("window.tileViewer.tilesPerPage()")[0] > 0
    # a swipe past half a page
    s.page.mouse.move(1000, 400)
    s.page.mouse.down()
    s.page.mouse.move(300, 400, steps=10)
    s.page.mouse.up()
    s.settle()
    assert s.state()["image"] == "baseline"
    s.screenshot("gallery-swipe.png")
    s.page.click("#next")
    s.settle()
    state = s.state()
    assert state["image"] == "rgb" and state["index"] == 2
    assert any(u.startswith("/images/rgb/tiles/") for u in s.tiles)
    per_page = s.page.evaluate("window.tileViewer.tilesPerPage()")
    assert per_page[0] == 0, per_page          # two pages away: purged
    assert per_page[2] > 0 and per_page[1] > 0 and per_page[3] > 0
    assert s.page.locator('.page[data-image="large"] img').count() == 0
    s.page.keyboard.press("PageUp")
    s.settle()
    assert s.state()["image"] == "baseline"
    s.close()


def test_phone_sized_window(browser, gallery):
    s = Session(browser, gallery, width=390, height=844)
    state = s.state()
    v = s.api("/api/images/large/viewport?width=390&height=844")
    assert state["zoom"] == pytest.approx(v["zoom"]) and state["width"] == 390
    shot = s.screenshot("phone.png")
    inset = v["inset"]
    box = (2, int(inset["top"]) + 2, 388, int(844 - inset["bottom"]) - 2)
    assert max(ImageStat.Stat(shot.crop(box)).stddev) > 10
    s.page.mouse.dblclick(195, 422)
    s.settle()
    assert s.state()["zoom"] > state["zoom"]
    s.screenshot("phone-zoomed.png")
    s.close()


def test_deep_zoom_screenshot(browser, gallery):
    s = Session(browser, gallery, path="/#image=large&zoom=1&cx=1500&cy=1000")
    assert s.state()["level"] == 12
    shot = s.screenshot("deep-zoom.png")
    assert max(ImageStat.Stat(shot).stddev) > 10
    s.close()
