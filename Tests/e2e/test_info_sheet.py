"""The info sheet on a phone (issue 60, item 5): at most half the screen, the photo re-fitted into the space above
it with its centre kept, the gallery's dots hidden while it is open, and a swipe down closing it. In Chromium on a
390 × 844 phone at device-pixel ratio 3 (and a desktop, whose side panel leaves the view alone), against the real
server."""
import shutil

import pytest

from conftest import ARTIFACTS, FIXTURES, PHONE, Server, settled, touch_swipe, viewer_page

LARGE = FIXTURES.parent / "gallery" / "large.jpg"         # 3996 × 2582


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("sheet")
    for name in ("one", "two"):
        shutil.copy(LARGE, root / f"{name}.jpg")
    server = Server([str(root), "--access-log", "off"])
    yield server
    server.stop()


def box(page, selector):
    return page.evaluate(f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect(); return {{top: r.top, bottom: r.bottom, height: r.height}}; }})()")


def picture(page):
    """Where the photo's thumbnail is drawn on screen (the whole photo at fit)."""
    return page.evaluate("""(() => { const img = [...document.querySelectorAll('.page img.base')]
        .find(i => i.getBoundingClientRect().left >= -1 && i.getBoundingClientRect().left < window.innerWidth);
        const r = img.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, height: r.height, width: r.width}; })()""")


def test_the_phone_sheet_takes_half_the_screen_refits_the_photo_above_and_swipes_away(served, browser):
    context, page = viewer_page(browser, PHONE)
    errors = page.errors
    page.goto(f"http://127.0.0.1:{served.port}/?image=one")
    before = settled(page)
    assert before["fit"] and page.locator("#gallery").is_visible()
    shown = picture(page)

    page.click("#show-info")
    page.wait_for_function("document.querySelector('#info .body dl') !== null")
    page.wait_for_function("document.body.classList.contains('sheet-open')")
    page.wait_for_timeout(300)
    after = settled(page)
    sheet, view = box(page, "#info"), box(page, "#viewer")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "info-sheet-phone.png"))
    assert sheet["height"] <= 844 / 2 + 1, sheet
    assert abs(view["bottom"] - sheet["top"]) <= 1, (view, sheet)            # the view ends where the sheet begins
    assert after["fit"] and after["height"] == pytest.approx(view["height"], abs=1), after
    assert after["cx"] == pytest.approx(before["cx"]) and after["cy"] == pytest.approx(before["cy"])
    drawn = picture(page)
    assert drawn["bottom"] <= sheet["top"] + 1 and drawn["top"] >= 56 - 1, (drawn, sheet)   # all of it above the sheet
    # Centred in the space above the sheet (it was centred on the whole screen, partly under where the sheet is).
    assert (drawn["top"] + drawn["bottom"]) / 2 == pytest.approx((view["top"] + view["bottom"]) / 2, abs=2), (drawn, view)
    assert shown["bottom"] > sheet["top"], "the test's photo must have been partly where the sheet now is"
    assert not page.locator("#gallery").is_visible()

    # A swipe down on the sheet closes it; the photo fits the whole view again, and the dots are back.
    touch_swipe_down = sheet["top"] + 20
    cdp = context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": 195, "y": touch_swipe_down}]})
    for i in range(1, 9):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": 195, "y": touch_swipe_down + 20 * i}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()
    page.wait_for_function("document.getElementById('info').hidden && !document.body.classList.contains('sheet-open')")
    page.wait_for_timeout(300)
    closed = settled(page)
    assert closed["fit"] and closed["height"] == before["height"] and page.locator("#gallery").is_visible()
    assert errors == [], errors
    context.close()


def test_a_small_pull_or_a_desktop_panel_leaves_the_view_alone(served, browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{served.port}/?image=one")
    before = settled(page)
    page.click("#show-info")
    page.wait_for_function("document.querySelector('#info .body dl') !== null")
    page.wait_for_timeout(300)
    assert settled(page)["height"] == before["height"] and not page.evaluate("document.body.classList.contains('sheet-open')")
    context.close()

    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{served.port}/?image=one")
    settled(page)
    page.click("#show-info")
    page.wait_for_function("document.body.classList.contains('sheet-open')")
    top = box(page, "#info")["top"]
    touch_swipe(context, page, 195, 195, top + 20)        # a tap-like touch without a pull: the sheet stays
    page.wait_for_timeout(300)
    assert page.evaluate("!document.getElementById('info').hidden")
    context.close()
