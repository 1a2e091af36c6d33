"""The viewer as a photographer keeps it open, in Chromium on a 1440 × 900 desktop and a 390 × 844 phone at
device-pixel ratio 3, against the real server on real files: new photos sharp at JPEG speed, the photo never
under our controls at fit, controls that fade, full screen, share, ids that keep the file's letters (old ids
redirected), download, search and sort by what the files say (written with exiftool), the slideshow, turning the
view, swipes at three speeds, the phone's position, title, gestures and grid pictures, and the keys with the
server away. Screenshots land in artifacts/."""
import hashlib
import http.client
import io
import os
import shutil
import subprocess
import statistics
import threading
import time
from urllib.parse import quote, unquote

import numpy as np
import pytest
from PIL import Image

from conftest import FIXTURES, ROOT, Server, touch_swipe

ARTIFACTS = ROOT / "artifacts"
LARGE = FIXTURES.parent / "gallery" / "large.jpg"         # 3996 × 2582
DESKTOP = {"viewport": {"width": 1440, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "has_touch": True, "is_mobile": True}
DEVICES = {"desktop": DESKTOP, "phone": PHONE}
BOTH = pytest.mark.parametrize("device", DEVICES.values(), ids=DEVICES.keys())
PARIS, PARIS_ID = "Été à Paris (1)", "été/été-à-paris-1"
OLD_PARIS_ID = "-t-/-t----Paris--1-"                     # the id earlier versions gave it


def exiftool(path, *tags):
    subprocess.run(["exiftool", "-q", "-overwrite_original", *tags, str(path)], check=True)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Été/: five photos, two tagged "glacier" (one by Ana Ruiz), dates taken in the opposite order of the file
    times; swipe/: 31 small images; ten/: ten."""
    root = tmp_path_factory.mktemp("photographer") / "photos"
    ete = root / "Été"
    ete.mkdir(parents=True)
    shutil.copy(LARGE, ete / f"{PARIS}.jpg")
    for name in ("b-river", "c-dunes", "d-forest", "e-harbour"):
        shutil.copy(FIXTURES / "baseline.jpg", ete / f"{name}.jpg")
    exiftool(ete / "b-river.jpg", "-Keywords=glacier", "-Keywords=ice", "-Creator=Ana Ruiz", "-DateTimeOriginal=2021:03:01 09:00:00")
    exiftool(ete / "d-forest.jpg", "-XMP-dc:Subject=Glacier", "-Creator=Bo Lind", "-DateTimeOriginal=2019:07:14 12:00:00")
    exiftool(ete / "c-dunes.jpg", "-Creator=Ana Ruizova", "-DateTimeOriginal=2023:11:30 18:00:00")
    exiftool(ete / f"{PARIS}.jpg", "-DateTimeOriginal=2020:06:21 21:00:00")
    # File times in the opposite order: date added is not date taken.
    for age, name in enumerate(["c-dunes", "b-river", PARIS, "d-forest", "e-harbour"]):
        os.utime(ete / f"{name}.jpg", (time.time() - 86400 * (10 - age),) * 2)
    for folder, count in (("swipe", 31), ("ten", 10)):
        (root / folder).mkdir()
        for i in range(count):
            os.symlink(FIXTURES / ("baseline.jpg" if i % 2 else "rgb.png"), root / folder / f"page-{i:02d}{'.jpg' if i % 2 else '.png'}")
    return root


@pytest.fixture(scope="module")
def served(tree):
    server = Server([str(tree), "--access-log", "off"])
    server.wait_for_index()
    yield server
    server.stop()


class Tab:
    """A page in a fresh context that fails on script errors and 5xx answers, recording what it asked for."""

    def __init__(self, browser, server, path="/", device=DESKTOP, settle=True, **options):
        self.server, self.device = server, device
        self.context = browser.new_context(**device, **options)
        self.page = self.context.new_page()
        self.errors, self.requests = [], []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", lambda r: r.status >= 500 and self.errors.append((r.status, r.url)))
        self.page.on("request", lambda r: self.requests.append(r.url.split(f":{server.port}", 1)[-1]))
        self.page.goto(f"http://127.0.0.1:{server.port}{path}")
        if settle:
            self.settle()

    def settle(self, timeout=30_000):
        self.wait("window.tileViewer && window.tileViewer.state.ready && window.tileViewer.state.pending === 0", timeout)

    def wait(self, condition, timeout=30_000):
        self.page.wait_for_function(condition, timeout=timeout)

    def state(self):
        return self.page.evaluate("window.tileViewer.state")

    def box(self, selector):
        return self.page.evaluate(f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }})()")

    def shot(self, name):
        ARTIFACTS.mkdir(exist_ok=True)
        label = next((k for k, d in DEVICES.items() if d == self.device), "custom")
        return Image.open(io.BytesIO(self.page.screenshot(path=str(ARTIFACTS / f"photographer-{name}-{label}.png")))).convert("RGB")

    def swipe(self, x0, x1, y):
        touch_swipe(self.context, self.page, x0, x1, y)

    def close(self):
        assert self.errors == [], self.errors
        self.context.close()


def photo_box(tab):
    """Where the photo lies on screen at the view the page shows: the viewer's box less the letterbox."""
    s = tab.state()
    left, top, right, bottom = tab.box("#viewer")
    inset = tab.server.json(f"/api/images/{quote(s['image'], safe='')}/viewport?width={round(right - left)}&height={round(bottom - top)}")["inset"]
    return [left + inset["left"], top + inset["top"], right - inset["right"], bottom - inset["bottom"]]


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def fetch_all(port, paths, connections=6):
    """GETs `paths` over `connections` keep-alive connections (what a browser opens to one host); seconds taken."""
    queue, lock, failures = list(paths), threading.Lock(), []

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                if not queue:
                    break
                path = queue.pop(0)
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                failures.append((path, response.status))
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    return time.perf_counter() - started


@BOTH
def test_a_new_photo_is_sharp_at_jpeg_speed(browser, tmp_path, device):
    """Time to sharp on a photo no server has seen: the viewer's visible tiles at the device-pixel level, from the
    first tile asked to the last in, against the same tiles asked for as JPEG by the same browser from a fresh
    server on the same photo (after its thumbnail and its view, as the page asks them first); seven rounds
    alternated. The viewer asks for exactly those JPEG URLs (asserted), so the two differ by the machine's noise
    only: single rounds of either swing between about 120 and 430 ms on this 2-core machine (the decode pass, the
    browser and the server share it), and a full CI run once saw medians of 0.42 against 0.25 s. What the bound
    guards against is a view that makes the server transcode (20× in issue 46), so it is 2× the JPEG median and
    100 ms: far under that, and over the noise.
    """
    ratio = device.get("device_scale_factor", 1)
    viewer_times, jpeg_times, sharp_times = [], [], []
    for round_ in range(7):
        folder = tmp_path / f"viewer-{round_}"
        folder.mkdir()
        shutil.copy(LARGE, folder / "new.jpg")
        server = Server([str(folder), "--access-log", "off"])
        tab = Tab(browser, server, "/?image=new", device)
        tab.wait("window.tileViewer.state.level > 0 && window.tileViewer.state.fit")
        tab.page.wait_for_timeout(300)
        tab.settle()
        s = tab.state()
        view = server.json(f"/api/images/new/viewport?width={round(s['width'])}&height={round(s['height'])}&dpr={ratio}&format=jpg")
        assert s["level"] == view["level"], f"the tiles shown are those for device pixels: {s}"
        wanted = [t["url"] for t in view["tiles"]]
        timing = tab.page.evaluate("""(wanted) => { const r = performance.getEntriesByType('resource');
            const tiles = wanted.map(u => r.find(e => e.name.endsWith(u))); if (tiles.some(t => !t)) return null;
            return { start: Math.min(...tiles.map(t => t.startTime)), end: Math.max(...tiles.map(t => t.responseEnd)) }; }""", wanted)
        assert timing, "every visible tile of the device level was loaded as the server names it (its store's format)"
        assert all(".jpg?v=" in u for u in wanted)
        viewer_times.append((timing["end"] - timing["start"]) / 1000)
        sharp_times.append(timing["end"] / 1000)
        tab.shot(f"sharp-{round_}")
        tab.close()
        server.stop()

        folder = tmp_path / f"jpeg-{round_}"
        folder.mkdir()
        shutil.copy(LARGE, folder / "new.jpg")
        server = Server([str(folder), "--access-log", "off"])
        entry = server.json("/api/images?folder=")["images"][0]
        # The same browser asks the same tiles as JPEG, after what the page asked before its tiles (the
        # thumbnail, then the view), all at once as the page does.
        reference = browser.new_context(**device)
        blank = reference.new_page()
        blank.goto(f"http://127.0.0.1:{server.port}/healthz")
        view_url = f"/api/images/new/viewport?width={round(s['width'])}&height={round(s['height'])}&dpr={ratio}&format=jpg"
        urls = [u.split("?")[0] + ".jpg?v=" + entry["version"] if not u.split("?")[0].endswith(".jpg") else u.split("?")[0] + "?v=" + entry["version"] for u in wanted]
        span = blank.evaluate("""async ([thumbnail, view, urls]) => {
            await (await fetch(thumbnail)).blob(); await (await fetch(view)).json();
            await Promise.all(urls.map(u => new Promise(done => { const i = new Image(); i.onload = i.onerror = done; i.src = u; })));
            const r = performance.getEntriesByType('resource').filter(e => urls.some(u => e.name.endsWith(u)));
            if (r.length !== urls.length) return null;
            return (Math.max(...r.map(e => e.responseEnd)) - Math.min(...r.map(e => e.startTime))) / 1000; }""", [entry["thumbnail"], view_url, urls])
        assert span, "every tile was fetched as JPEG"
        jpeg_times.append(span)
        reference.close()
        server.stop()
    v, j = statistics.median(viewer_times), statistics.median(jpeg_times)
    print(f"time to sharp ({'x'.join(map(str, device['viewport'].values()))} @{ratio}): viewer tiles {v * 1000:.0f} ms, "
          f"the same tiles as JPEG {j * 1000:.0f} ms (medians, ratio {v / j:.2f}; best rounds {min(viewer_times) * 1000:.0f} and "
          f"{min(jpeg_times) * 1000:.0f} ms, ratio {min(viewer_times) / min(jpeg_times):.2f}); from navigation {statistics.median(sharp_times) * 1000:.0f} ms; "
          f"rounds {[round(x * 1000) for x in viewer_times]} / {[round(x * 1000) for x in jpeg_times]}")
    assert v <= 2 * j + 0.1, (viewer_times, jpeg_times)


@BOTH
def test_controls_never_cover_the_photo_at_fit_fade_and_come_back(browser, served, device):
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", device, fading=True)
    photo = photo_box(tab)
    controls = tab.page.evaluate("""[...document.querySelectorAll('#top > *, #gallery')].filter(e => e.offsetParent !== null || e.id === 'gallery')
        .map(e => { const r = e.getBoundingClientRect(); return [e.id, r.left, r.top, r.right, r.bottom]; }).filter(b => b[3] > b[1])""")
    assert len(controls) >= 4, controls
    for control in controls:
        assert not overlaps(photo, control[1:]), (control, photo)
    tab.shot("fit-with-controls")
    tab.page.wait_for_timeout(3000)
    assert tab.page.evaluate("getComputedStyle(document.getElementById('top')).opacity") == "0"
    assert tab.page.evaluate("getComputedStyle(document.getElementById('gallery')).opacity") == "0"
    tab.shot("controls-faded")
    if device is PHONE:
        tab.page.tap("#viewer")
    else:
        tab.page.mouse.move(300, 300)
        tab.page.mouse.move(320, 310)
    tab.page.wait_for_timeout(500)
    assert tab.page.evaluate("getComputedStyle(document.getElementById('top')).opacity") == "1"
    tab.page.keyboard.press("+")
    tab.settle()
    tab.page.wait_for_timeout(3000)
    assert tab.page.evaluate("document.body.classList.contains('idle')"), "they fade at any zoom"
    tab.page.keyboard.press("0")
    tab.page.wait_for_timeout(200)
    assert not tab.page.evaluate("document.body.classList.contains('idle')"), "a key brings them back"
    tab.close()


SIDEWAYS_PHONE = {**PHONE, "viewport": {"width": 844, "height": 390}}


@pytest.mark.parametrize("device", [DESKTOP, PHONE, SIDEWAYS_PHONE], ids=["desktop", "phone", "sideways-phone"])
def test_faded_bars_give_their_space_to_the_photo(browser, served, device):
    """Faded, the top bar and the gallery bar give their space to the photo (30 % of a sideways phone's height):
    at fit it grows to the whole screen around the same centre; zoomed in, the same image point stays in the
    middle at the same zoom; the bars back, the photo fits the area between them again."""
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", device, fading=True)
    width, height = device["viewport"]["width"], device["viewport"]["height"]
    drawn = """(() => { const r = document.querySelector('.page[data-image="' + window.tileViewer.state.image + '"] img.base')
        .getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()"""
    idle = "document.body.classList.contains('idle')"
    shown = tab.state()
    box = tab.box("#viewer")
    assert box[1] >= 50 and height - box[3] >= 50, box
    assert shown["fit"] and abs(shown["height"] - (box[3] - box[1])) < 1, (shown, box)
    before = tab.page.evaluate(drawn)
    assert before[1] >= box[1] - 1 and before[3] <= box[3] + 1, (before, box)
    tab.wait(idle, 10_000)
    tab.settle()
    faded = tab.state()
    assert tab.box("#viewer") == [0, 0, width, height]
    entry = served.json(f"/api/images/{quote(PARIS_ID, safe='')}")
    fit = min(width / entry["width"], height / entry["height"])
    assert faded["fit"] and faded["height"] == height and abs(faded["zoom"] - fit) < 1e-5, (shown, faded, fit)
    photo = tab.page.evaluate(drawn)
    assert abs((photo[3] - photo[1]) - entry["height"] * fit) <= 1, (photo, fit)
    if device is not PHONE:           # a landscape photo on a portrait phone fits its width either way
        assert faded["zoom"] > shown["zoom"] * 1.05 and photo[3] - photo[1] > (before[3] - before[1]) * 1.05, (before, photo)
    assert abs((photo[0] + photo[2]) / 2 - width / 2) <= 1 and abs((photo[1] + photo[3]) / 2 - height / 2) <= 1, photo
    assert min(photo[0], photo[1]) >= -1 and photo[2] <= width + 1 and photo[3] <= height + 1, photo
    tab.page.wait_for_timeout(400)                      # the fade itself takes 0.3 s
    tab.shot(f"bars-faded-{width}x{height}")
    if device.get("has_touch"):
        tab.page.tap("#viewer")
    else:
        tab.page.mouse.move(300, 300)
        tab.page.mouse.move(320, 310)
    tab.wait(f"!{idle}")
    tab.settle()
    back = tab.state()
    assert tab.box("#viewer") == box and back["fit"] and abs(back["zoom"] - shown["zoom"]) < 1e-6, (back, shown)
    tab.page.keyboard.press("+")
    tab.settle()
    zoomed = tab.state()
    assert not zoomed["fit"], zoomed
    tab.wait(idle, 10_000)
    tab.settle()
    still = tab.state()
    assert still["height"] == height and not still["fit"], still
    assert abs(still["zoom"] - zoomed["zoom"]) < 1e-6, (zoomed, still)     # the server answers 6 digits
    assert abs(still["cx"] - zoomed["cx"]) < 0.5 and abs(still["cy"] - zoomed["cy"]) < 0.5, (zoomed, still)
    middle = tab.page.evaluate(f"window.tileViewer.toImage({width / 2}, {height / 2})")
    assert abs(middle["x"] - zoomed["cx"]) < 1 and abs(middle["y"] - zoomed["cy"]) < 1, (middle, zoomed)
    tab.close()


def test_a_zoom_made_while_a_resize_is_answered_is_kept(browser, served):
    """The bars come back (or the window is resized) and the server's answer for the new size is still on its
    way when + is pressed: that answer, arriving just after, does not take the view back to fit."""
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", DESKTOP)
    # Answers of /viewport held in the page until let go: the race a loaded machine makes, made every time.
    tab.page.evaluate("""(() => { const real = window.fetch, held = [];
        window.letGo = () => { held.splice(0).forEach((go) => go()); window.fetch = real; };
        window.fetch = (url, ...rest) => String(url).includes('/viewport?')
          ? new Promise((done) => held.push(() => done(real(url, ...rest)))) : real(url, ...rest); })()""")
    tab.page.set_viewport_size({"width": 1200, "height": 800})
    tab.wait("window.tileViewer.state.width === 1200")  # the new size drawn here, its answer held
    tab.page.keyboard.press("+")
    tab.page.evaluate("window.letGo()")                 # the resize's answer lands before the zoom's is asked
    zoomed = tab.state()
    assert not zoomed["fit"], zoomed
    tab.page.wait_for_timeout(500)
    tab.settle()
    after = tab.state()
    assert not after["fit"] and abs(after["zoom"] - zoomed["zoom"]) < 1e-6, (zoomed, after)
    tab.close()


@BOTH
def test_full_screen_by_key_and_button(browser, served, device):
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", device)
    full = "document.fullscreenElement !== null"
    if device is DESKTOP:
        tab.page.keyboard.press("f")
        tab.wait(full)
        assert tab.page.get_attribute("#fullscreen", "aria-pressed") == "true"
        tab.shot("fullscreen")
        tab.page.keyboard.press("f")
        tab.wait(f"!({full})")
        tab.page.click("#fullscreen")
        tab.wait(full)
        tab.page.click("#fullscreen")
        tab.wait(f"!({full})")
    else:
        assert tab.page.locator("#fullscreen").is_hidden(), "on a phone the button is in the info panel"
        tab.page.tap("#show-info")
        tab.page.tap("#info-fullscreen")
        tab.wait(full)
        assert tab.page.text_content("#info-fullscreen") == "Leave full screen"
        tab.page.tap("#info-fullscreen")
        tab.wait(f"!({full})")
    assert tab.page.get_attribute("#fullscreen", "aria-pressed") == "false"
    tab.close()


def press(tab, selector):
    """A tap on the phone, a click on the desktop."""
    if tab.device is PHONE:
        tab.page.tap(selector)
    else:
        tab.page.click(selector)


@BOTH
def test_copy_link_opens_the_same_image_and_view_elsewhere(browser, served, device):
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", device)
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab.page.evaluate("delete Navigator.prototype.share")     # no system sheet here: the link is copied
    tab.page.keyboard.press("+")
    tab.page.keyboard.press("+")
    tab.settle()
    before = tab.state()
    press(tab, "#share")
    tab.wait("!document.getElementById('notice').hidden")
    assert "Link copied" in tab.page.text_content("#notice")
    link = tab.page.evaluate("navigator.clipboard.readText()")
    assert "été-à-paris-1" in unquote(link), link                 # a readable id
    tab.shot("shared")
    tab.close()
    other = Tab(browser, served, link.split(f":{served.port}", 1)[1], device)
    after = other.state()
    assert after["image"] == PARIS_ID and not after["fit"]
    assert abs(after["zoom"] - before["zoom"]) < 1e-6 and abs(after["cx"] - before["cx"]) < 1 and abs(after["cy"] - before["cy"]) < 1
    other.shot("shared-link-opened")
    other.close()


@BOTH
def test_ids_keep_the_letters_and_old_ids_still_open_the_image(browser, served, device):
    entries = served.json(f"/api/images?folder={quote('été', safe='')}")["images"]
    assert PARIS_ID in [e["id"] for e in entries]
    for old in (f"/?image={quote(OLD_PARIS_ID, safe='')}", f"/#image={quote(OLD_PARIS_ID, safe='')}"):
        tab = Tab(browser, served, old, device)
        assert tab.state()["image"] == PARIS_ID, old
        tab.wait(f"location.search === '?image={quote(PARIS_ID, safe='')}' && location.hash === ''")
        tab.close()
    response = served.get(f"/api/images/{quote(OLD_PARIS_ID, safe='')}")
    assert response[0].status == 301 and response[0].getheader("Location") == f"/api/images/{quote(PARIS_ID, safe='')}"


@BOTH
def test_download_the_original_and_this_view(browser, served, tree, device):
    """The desktop's ⤓ menu, the phone's info panel."""
    ratio = device.get("device_scale_factor", 1)
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", device, accept_downloads=True)
    original_link, view_link = ("#download-original", "#download-view") if device is DESKTOP else ("#info-original", "#info-view")
    opener = "#download" if device is DESKTOP else "#show-info"
    press(tab, opener)
    with tab.page.expect_download() as event:
        press(tab, original_link)
    download = event.value
    assert download.suggested_filename == f"{PARIS}.jpg"
    original = (tree / "Été" / f"{PARIS}.jpg").read_bytes()
    assert hashlib.sha256(open(download.path(), "rb").read()).hexdigest() == hashlib.sha256(original).hexdigest()
    for zoom_in in (False, True):
        if zoom_in:
            if device is PHONE:
                press(tab, "#info .close")
            tab.page.keyboard.press("+")
            tab.settle()
        s = tab.state()
        scale = min(ratio, s["maxZoom"] / s["zoom"])
        visible = (round(min(s["width"], 3996 * s["zoom"]) * scale), round(min(s["height"], 2582 * s["zoom"]) * scale))
        if device is DESKTOP or zoom_in:
            press(tab, opener)
        with tab.page.expect_download() as event:
            press(tab, view_link)
        view = Image.open(event.value.path())
        assert view.format == "JPEG" and view.size == visible, (view.size, visible)
        assert np.asarray(view.convert("L"), dtype=float).std() > 10, "a picture, not a blank"
    tab.shot("download")
    tab.close()


@BOTH
def test_search_by_keyword_and_creator_and_sort_by_date_taken(browser, served, device):
    ids = lambda q: [i["id"] for i in served.json(f"/api/images?q={quote(q)}")["images"]]
    assert ids("glacier") == ["été/b-river", "été/d-forest"]
    assert ids("ana ruiz") == ["été/b-river", "été/c-dunes"]
    assert ids("ana ruiz glacier") == ["été/b-river"]
    taken = [i["id"] for i in served.json(f"/api/images?folder={quote('été')}&sort=taken")["images"]]
    assert taken == ["été/d-forest", PARIS_ID, "été/b-river", "été/c-dunes", "été/e-harbour"], taken
    added = [i["id"] for i in served.json(f"/api/images?folder={quote('été')}&sort=added&order=asc")["images"]]
    assert added == ["été/c-dunes", "été/b-river", PARIS_ID, "été/d-forest", "été/e-harbour"], added
    assert served.get("/api/images?sort=size")[0].status == 400

    tab = Tab(browser, served, f"/?folder={quote('été')}", device, settle=False)
    tab.wait("document.querySelectorAll('#grid .cell').length === 5")
    tab.page.select_option("#sort", "taken")
    tab.wait(f"document.querySelector('#grid .cell').dataset.id === 'été/d-forest'")
    assert tab.page.eval_on_selector_all("#grid .cell", "c => c.map(x => x.dataset.id)") == taken
    press(tab, '#grid .cell[data-id="été/d-forest"]')
    tab.wait("window.tileViewer.state.mode === 'zoom' && window.tileViewer.state.ready")
    tab.page.keyboard.press("ArrowRight")
    tab.wait(f"window.tileViewer.state.image === '{PARIS_ID}'")       # paging follows the order chosen
    tab.page.keyboard.press("Escape")
    tab.wait("window.tileViewer.state.mode === 'folder'")
    tab.page.fill("#search", "glacier")
    tab.wait("location.search === '?q=glacier' && document.querySelectorAll('#grid .cell').length === 2")
    assert sorted(tab.page.eval_on_selector_all("#grid .cell", "c => c.map(x => x.dataset.id)")) == ["été/b-river", "été/d-forest"]
    tab.shot("search")
    tab.page.fill("#search", "Ana Ruiz")
    tab.wait("decodeURIComponent(location.search) === '?q=Ana Ruiz' && document.querySelectorAll('#grid .cell').length === 2")
    press(tab, '#grid .cell[data-id="été/c-dunes"]')
    tab.wait("window.tileViewer.state.image === 'été/c-dunes' && window.tileViewer.state.ready")
    tab.page.go_back()
    tab.wait("decodeURIComponent(location.search) === '?q=Ana Ruiz' && document.querySelectorAll('#grid .cell').length === 2")
    tab.close()


@BOTH
def test_a_slideshow_advances_preloads_and_stops_on_a_key(browser, served, device):
    tab = Tab(browser, served, f"/?image={quote('été/b-river', safe='')}", device)
    press(tab, "#show-help")
    tab.page.select_option("#slide-interval", "2")
    press(tab, "#help .close")
    start = tab.state()["index"]
    if device is PHONE:
        press(tab, "#play")
    else:
        tab.page.keyboard.press(" ")
    tab.wait("window.tileViewer.state.slideshow")
    assert tab.page.get_attribute("#play", "aria-pressed") == "true"
    tab.wait(f"window.tileViewer.state.index === {start + 1}", timeout=6000)
    # While photo start+1 shows, the next one's fitted tiles are fetched already.
    following = served.json(f"/api/images?folder={quote('été')}")["images"][start + 2]
    s = tab.state()
    ratio = device.get("device_scale_factor", 1)
    view = served.json(f"/api/images/{quote(following['id'], safe='')}/viewport?width={round(s['width'])}&height={round(s['height'])}&dpr={ratio}&format=jpg")
    tab.page.wait_for_timeout(800)
    assert tab.state()["index"] == start + 1
    assert all(t["url"] in tab.requests for t in view["tiles"]), "the next photo is preloaded"
    tab.wait(f"window.tileViewer.state.index === {start + 2}", timeout=6000)
    tab.shot("slideshow")
    tab.page.keyboard.press("x")
    assert not tab.state()["slideshow"]
    tab.page.wait_for_timeout(2600)
    assert tab.state()["index"] == start + 2, "stopped"
    if device is PHONE:
        tab.page.tap("#viewer")                       # a first tap brings the faded controls back
    press(tab, "#play")
    tab.wait("window.tileViewer.state.slideshow")
    if device is PHONE:
        tab.page.tap("#viewer")
    else:
        tab.page.mouse.click(700, 450)
    assert not tab.state()["slideshow"], "a click or a tap stops it"
    tab.close()


@BOTH
def test_rotate_the_view(browser, served, device):
    ratio = device.get("device_scale_factor", 1)
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", device)
    before = tab.state()
    box = [round(c * ratio) for c in photo_box(tab)]
    upright = tab.shot("rotate-0").crop(box)
    if device is PHONE:
        press(tab, "#show-info")
        press(tab, "#rotate")
        press(tab, "#info .close")
        # The sheet gave the photo the space above it while open (issue 60, item 5): closed, the turned view
        # fits the whole screen again once the view's new size is seen.
        tab.wait(f"window.tileViewer.state.width === {before['height']}", timeout=5_000)
    else:
        tab.page.keyboard.press("r")
    tab.settle()
    turned = tab.state()
    assert turned["rotation"] == 90 and turned["fit"]
    assert (turned["width"], turned["height"]) == (before["height"], before["width"]), "the view is fitted to the turned picture"
    tab.wait(f"location.search === '?image={quote(PARIS_ID, safe='')}&rotate=90'")
    left, top, right, bottom = tab.box("#viewer")
    inset = served.json(f"/api/images/{quote(PARIS_ID, safe='')}/viewport?width={round(bottom - top)}&height={round(right - left)}")["inset"]
    area = (left + inset["top"], top + inset["left"], right - inset["bottom"], bottom - inset["right"])
    shown = tab.shot("rotate-90").crop(tuple(round(c * ratio) for c in area))
    expected = upright.transpose(Image.Transpose.ROTATE_270).resize(shown.size)
    difference = np.abs(np.asarray(shown, dtype=float) - np.asarray(expected, dtype=float)).mean()
    assert difference < 12, f"the picture on screen is the photo turned 90° clockwise (mean difference {difference:.1f})"
    tab.page.reload()
    tab.settle()
    tab.page.wait_for_timeout(300)
    tab.settle()
    assert tab.state()["rotation"] == 90, "the address keeps the turn"
    tab.page.keyboard.press("+")
    tab.wait(f"window.tileViewer.state.zoom > {turned['zoom']} * 1.2", timeout=5000)
    tab.settle()
    tab.page.keyboard.press("Shift+R")
    tab.settle()
    assert tab.state()["rotation"] == 0
    tab.close()


@pytest.mark.parametrize("run", [1, 2, 3])
def test_every_swipe_counts_at_three_speeds(browser, served, run):
    for gap in (1.2, 0.6, 0.3):
        tab = Tab(browser, served, "/?image=swipe%2Fpage-00", PHONE)
        changed = 0
        for n in range(30):
            before = tab.state()["index"]
            started = time.perf_counter()
            tab.swipe(330, 50, 420)
            time.sleep(max(0, gap - (time.perf_counter() - started)))
            changed += tab.state()["index"] == before + 1
        print(f"run {run}, swipes {gap} s apart: {changed}/30 changed the image")
        assert changed == 30, (gap, changed)
        tab.close()


def test_the_phone_shows_where_you_are_a_readable_title_gestures_and_sharp_grid_pictures(browser, served):
    tab = Tab(browser, served, "/?image=ten%2Fpage-03", PHONE)
    assert tab.page.is_visible("#counter") and tab.page.text_content("#counter") == "4 / 10"
    assert tab.page.is_hidden("#dots"), "ten dots do not fit on 390 px"
    tab.page.tap("#show-help")
    help_text = tab.page.text_content("#help")
    assert "Swipe" in help_text and "Pinch" in help_text and "Double-tap" in help_text
    tab.shot("help")
    tab.close()

    narrow = {**PHONE, "viewport": {"width": 320, "height": 640}}
    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", narrow)
    title = tab.page.evaluate("""(() => { const t = document.getElementById('title'), r = t.getBoundingClientRect();
        return { width: r.width, lines: Math.round(t.clientHeight / parseFloat(getComputedStyle(t).lineHeight)), clipped: t.scrollHeight > t.clientHeight + 1 }; })()""")
    assert title["width"] > 40 and title["lines"] <= 2 and not title["clipped"], title
    tab.shot("title-320")
    tab.close()

    tab = Tab(browser, served, f"/?folder={quote('été')}", PHONE, settle=False)
    tab.wait("document.querySelectorAll('#grid img').length === 5 && [...document.querySelectorAll('#grid img')].every(i => i.complete && i.naturalWidth > 0)")
    drawn = tab.page.eval_on_selector(f'#grid .cell[data-id="{PARIS_ID}"] img', "i => [i.naturalWidth, i.getBoundingClientRect().width]")
    assert drawn[0] >= 0.95 * drawn[1] * 3, f"the grid picture has {drawn[0]} px for {drawn[1]} CSS px at ratio 3"
    tab.shot("grid")
    tab.close()

    tab = Tab(browser, served, f"/?image={quote(PARIS_ID, safe='')}", DESKTOP)
    switch = "#toggle-mode"
    assert tab.page.get_attribute(switch, "aria-pressed") == "false" and tab.page.text_content(f"{switch} .state") == "off"
    tab.page.click(switch)
    assert tab.page.get_attribute(switch, "aria-pressed") == "true" and tab.page.text_content(f"{switch} .state") == "on"
    tab.close()


def test_with_the_server_away_fit_escape_and_arrows_work_on_what_is_loaded(browser, tree):
    server = Server([str(tree), "--access-log", "off"])
    tab = Tab(browser, server, f"/?image={quote(PARIS_ID, safe='')}", DESKTOP)
    index = tab.state()["index"]
    tab.page.keyboard.press("+")
    tab.settle()
    server.stop()
    tab.page.keyboard.press("0")
    tab.wait("window.tileViewer.state.fit")
    assert index == 4, "the last of the folder"
    tab.page.keyboard.press("ArrowLeft")
    tab.wait(f"window.tileViewer.state.index === {index - 1}")
    tab.page.keyboard.press("ArrowRight")
    tab.wait(f"window.tileViewer.state.index === {index}")
    tab.page.keyboard.press("Escape")
    tab.wait("window.tileViewer.state.mode === 'folder' && document.querySelectorAll('#grid .cell').length === 5")
    tab.shot("offline-folder")
    tab.context.close()
