"""Double-click and double-tap go both ways (issue 60, item 7): below the largest zoom a 1.5× step toward the point,
at the largest zoom back to fit; the fit ↔ 100 % switch applies to touch too and is remembered. In Chromium, on a
1440 × 900 desktop and a 390 × 844 phone at device-pixel ratio 3, against the real server."""
import shutil

import pytest

from conftest import DESKTOP, DEVICES, FIXTURES, PHONE, Server, settled, viewer_page

LARGE = FIXTURES.parent / "gallery" / "large.jpg"         # 3996 × 2582


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("double-tap")
    shutil.copy(LARGE, root / "large.jpg")
    server = Server([str(root), "--access-log", "off"])
    yield server
    server.stop()


def double(page, device):
    """A double-click, or two taps 80 ms apart, at the middle of the picture."""
    box = page.locator("#viewer").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if device is PHONE:
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(80)
        page.touchscreen.tap(x, y)
    else:
        page.mouse.dblclick(x, y)


@pytest.mark.parametrize("device", DEVICES.values(), ids=DEVICES.keys())
def test_double_taps_step_in_then_return_to_fit_and_the_switch_is_remembered(served, browser, device):
    context, page = viewer_page(browser, device)
    errors = page.errors
    page.goto(f"http://127.0.0.1:{served.port}/?image=large")
    start = settled(page)
    assert start["fit"]
    zooms = [start["zoom"]]
    for _ in range(12):                                   # steps of 1.5× up to the largest zoom, then one more
        before = zooms[-1]
        double(page, device)
        page.wait_for_function(f"window.tileViewer.state.zoom !== {before}", timeout=5000)
        zooms.append(settled(page)["zoom"])
        page.wait_for_timeout(400)                          # the next taps are not taken for this one's
        if zooms[-1] < before:
            break
    assert zooms[-2] == pytest.approx(start["maxZoom"]), zooms
    assert zooms[-1] == pytest.approx(start["zoom"]), ("at the largest zoom a double tap returns to fit", zooms)
    page.wait_for_function("window.tileViewer.state.fit", timeout=5000)
    assert all(b == pytest.approx(min(a * 1.5, start["maxZoom"]), rel=1e-4) for a, b in zip(zooms[:-2], zooms[1:-1])), zooms

    # The switch: fit ↔ 100 %, for touch as for the mouse, and still on after a reload.
    page.evaluate("document.getElementById('toggle-mode-panel').click()")
    double(page, device)
    page.wait_for_function(f"window.tileViewer.state.zoom === {start['maxZoom']}", timeout=5000)
    page.reload()
    settled(page)
    assert page.get_attribute("#toggle-mode-panel", "aria-pressed") == "true"
    double(page, device)
    page.wait_for_function(f"window.tileViewer.state.zoom === {start['maxZoom']}", timeout=5000)
    assert errors == []
    context.close()


@pytest.mark.parametrize("device", DEVICES.values(), ids=DEVICES.keys())
def test_max_zoom_is_honoured_and_100_percent_stays_100(tmp_path, browser, device):
    """Issue 60, smaller things: with --max-zoom 4 the viewer zooms to 400 %; `1` and the switch still mean 100 %."""
    shutil.copy(LARGE, tmp_path / "large.jpg")
    server = Server([str(tmp_path), "--access-log", "off", "--max-zoom", "4"])
    context = browser.new_context(**device)
    page = context.new_page()
    try:
        page.goto(f"http://127.0.0.1:{server.port}/?image=large")
        assert settled(page)["maxZoom"] == 4
        page.focus("#viewer")
        for _ in range(14):
            page.keyboard.press("+")
        page.wait_for_function("window.tileViewer.state.zoom === 4")
        settled(page)
        page.keyboard.press("1")
        page.wait_for_function("window.tileViewer.state.zoom === 1")
        settled(page)
        page.keyboard.press("0")
        page.wait_for_function("window.tileViewer.state.fit")
        page.evaluate("document.getElementById('toggle-mode-panel').click()")
        double(page, device)
        page.wait_for_function("!window.tileViewer.state.fit")
        assert settled(page)["zoom"] == 1, "the switch goes fit ↔ 100 %, not to the largest zoom"
    finally:
        context.close()
        server.stop()
