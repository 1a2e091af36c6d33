""""Save this view" saves the view as seen (issue 60, item 6): a turned photo is saved turned, at the size it has on
screen in device pixels. In Chromium, on a 1440 × 900 desktop and a 390 × 844 phone at device-pixel ratio 3,
against the real server; the saved file's pixels are compared with the screen's."""
import io
import shutil

import numpy as np
import pytest
from PIL import Image

from conftest import ARTIFACTS, DESKTOP, DEVICES, FIXTURES, PHONE, Server, settled, viewer_page

LARGE = FIXTURES.parent / "gallery" / "large.jpg"         # 3996 × 2582


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("saved-view")
    shutil.copy(LARGE, root / "large.jpg")
    server = Server([str(root), "--access-log", "off"])
    yield server
    server.stop()


def saved(served, page):
    """The picture "Save this view" downloads now, as the menu's link names it."""
    page.evaluate("document.getElementById('download').click()")
    href = page.get_attribute("#download-view", "href")
    page.keyboard.press("Escape")
    response, body = served.get(href)
    assert response.status == 200, href
    return href, Image.open(io.BytesIO(body)).convert("RGB")


@pytest.mark.parametrize("device", DEVICES.values(), ids=DEVICES.keys())
def test_a_turned_view_is_saved_turned_at_the_screens_device_pixels(served, browser, device):
    context, page = viewer_page(browser, device)
    errors = page.errors
    label = next(k for k, d in DEVICES.items() if d is device)
    ratio = device.get("device_scale_factor", 1)
    page.goto(f"http://127.0.0.1:{served.port}/?image=large&rotate=90")
    state = settled(page)
    assert state["rotation"] == 90 and state["fit"]
    href, picture = saved(served, page)
    # Seen turned, the 3996 × 2582 photo stands 2582 wide and 3996 high, fitted to the screen.
    seen = (round(2582 * state["zoom"] * ratio), round(3996 * state["zoom"] * ratio))
    assert "rotate=90" in href and picture.size[1] > picture.size[0], (href, picture.size)
    assert abs(picture.size[0] - seen[0]) <= 1 and abs(picture.size[1] - seen[1]) <= 1, (picture.size, seen)

    # The saved pixels are the screen's: the screenshot of the picture's box, at device pixels, looks the same.
    ARTIFACTS.mkdir(exist_ok=True)
    shot = Image.open(io.BytesIO(page.screenshot(path=str(ARTIFACTS / f"saved-view-turned-{label}.png")))).convert("RGB")
    box = page.evaluate("""(() => { const r = document.querySelector('#viewer').getBoundingClientRect();
                                   return [r.left, r.top, r.width, r.height]; })()""")
    cx, cy = (box[0] + box[2] / 2) * ratio, (box[1] + box[3] / 2) * ratio
    on_screen = shot.crop((int(cx - seen[0] / 2) + 8, int(cy - seen[1] / 2) + 8, int(cx + seen[0] / 2) - 8, int(cy + seen[1] / 2) - 8))
    in_file = picture.crop((8, 8, picture.size[0] - 8, picture.size[1] - 8)).resize(on_screen.size)
    difference = np.abs(np.asarray(on_screen, dtype=float) - np.asarray(in_file, dtype=float)).mean()
    unturned = picture.transpose(Image.Transpose.ROTATE_90).resize(on_screen.size)
    wrong_way = np.abs(np.asarray(on_screen, dtype=float) - np.asarray(unturned, dtype=float)).mean()
    assert difference < 6 and wrong_way > 3 * difference, (difference, wrong_way)

    # Zoomed in, turned the other way: the part on screen, the screen's size in device pixels (at most native).
    page.goto(f"http://127.0.0.1:{served.port}/?image=large&rotate=270&zoom=0.5&cx=2000&cy=1300")
    state = settled(page)
    assert state["rotation"] == 270 and not state["fit"]
    href, picture = saved(served, page)
    screen = page.evaluate("[document.querySelector('#viewer').clientWidth, document.querySelector('#viewer').clientHeight]")
    scale = min(ratio, 1 / state["zoom"]) * state["zoom"]
    wanted = (round(min(screen[0], 2582 * state["zoom"]) * scale / state["zoom"]), round(min(screen[1], 3996 * state["zoom"]) * scale / state["zoom"]))
    assert "rotate=270" in href and abs(picture.size[0] - wanted[0]) <= 1 and abs(picture.size[1] - wanted[1]) <= 1, (picture.size, wanted)
    assert errors == [], errors
    context.close()
