"""The phone's top bar gives the title its room (issue 60, smaller things): the zoom pill does not take the bar's
width from a long title; it shows under the bar while the zoom changes, and for a moment after. On a desktop it
stays in the bar. In Chromium on a 390 × 844 phone at device-pixel ratio 3 and a 1440 × 900 desktop."""
import shutil

import pytest

from conftest import FIXTURES, PHONE, Server

LONG = "Harbour with sailing ships at dawn, seen from the old lighthouse"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("top-bar")
    shutil.copy(FIXTURES.parent / "gallery" / "large.jpg", root / f"{LONG}.jpg")
    server = Server([str(root), "--access-log", "off"])
    yield server
    server.stop()


def box(page, selector):
    return page.evaluate(f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect(); "
                         f"return {{left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}}; }})()")


def test_the_zoom_pill_yields_the_bar_to_the_title_on_a_phone(served, browser):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{served.port}/")
    page.wait_for_function("window.tileViewer?.state.ready && window.tileViewer.state.pending === 0")
    page.wait_for_timeout(1800)                           # the first view's zoom said, then left
    title, info = box(page, "#title"), box(page, "#show-info")
    assert page.locator("#zoom").is_hidden()
    assert info["left"] - title["right"] <= 8, (title, info)   # nothing between the title and the buttons
    page.focus("#viewer")
    page.keyboard.press("+")
    page.wait_for_function("!window.tileViewer.state.fit")
    assert page.locator("#zoom").is_visible() and box(page, "#zoom")["top"] >= 56
    assert box(page, "#title")["width"] == pytest.approx(title["width"], abs=1), "the title keeps its room"
    page.wait_for_timeout(2000)
    assert page.locator("#zoom").is_hidden()
    context.close()


def test_a_desktop_keeps_the_pill_in_the_bar(served, browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{served.port}/")
    page.wait_for_function("window.tileViewer?.state.ready && window.tileViewer.state.pending === 0")
    page.wait_for_timeout(1800)
    assert page.locator("#zoom").is_visible() and box(page, "#zoom")["top"] < 56
    context.close()
