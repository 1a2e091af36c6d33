"""The scale bar and the ruler (issue 61) on a slide of known microns per pixel, in Chromium on a 1440 × 900
desktop and a 390 × 844 phone at device-pixel ratio 3: the bar reads its own length right at three zooms; a ruler
drawn between two marks 1,400 pixels apart (349.72 µm) reads that within 1 %; images that do not say what a
pixel measures have neither."""
import io
import re

import numpy as np
import pytest
from PIL import Image

import slides
from conftest import ARTIFACTS, DESKTOP, PHONE, Server, settled, viewer_page

WIDTH, HEIGHT = 3000, 2000
MARKS = [(800, 1000), (2200, 1000)]
DISTANCE_UM = 1400 * slides.MPP


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("measure") / "slides"
    root.mkdir()
    slides.aperio(root / "marked.svs", WIDTH, HEIGHT, marks=MARKS)
    Image.fromarray(slides.picture(800, 600)).save(root / "photo.jpg", quality=90)
    server = Server([str(root), "--access-log", "off"])
    server.wait_for_index()
    yield server
    server.stop()


def micrometres(text):
    value, unit = re.fullmatch(r"([\d,.]+) (µm|mm)", text.strip()).groups()
    return float(value.replace(",", "")) * (1000 if unit == "mm" else 1)


def marks_on_screen(page):
    """The two marks' centres in CSS pixels, found in a screenshot (the only pure black on the slide)."""
    shot = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"), dtype=np.int32)
    ratio = shot.shape[1] / page.viewport_size["width"]
    dark = shot.sum(axis=2) < 40
    top = int(56 * ratio)
    dark[:top] = False
    ys, xs = np.nonzero(dark)
    assert len(xs) > 0, "no mark on screen"
    middle = (xs.min() + xs.max()) / 2
    centres = []
    for side in (xs < middle, xs >= middle):
        centres.append(((xs[side].mean() + 0.5) / ratio, (ys[side].mean() + 0.5) / ratio))
    return centres


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_scale_bar_reads_its_length_at_three_zooms(browser, served, device):
    context, page = viewer_page(browser, device)
    page.goto(f"http://127.0.0.1:{served.port}/?image=marked")
    seen = []
    for step in ("fit", "+", "1"):
        if step != "fit":
            page.keyboard.press(step)
        state = settled(page)
        assert page.is_visible("#scale-bar"), step
        width = page.evaluate("document.querySelector('#scale-bar .bar').getBoundingClientRect().width")
        said = micrometres(page.text_content("#scale-bar .length"))
        drawn = width / state["zoom"] * slides.MPP          # CSS pixels → image pixels → µm
        assert abs(drawn - said) <= 0.01 * said, (step, width, state["zoom"], said, drawn)
        assert 40 <= width <= 110.5, (step, width)
        assert re.fullmatch(r"[125]0*", f"{said:g}".replace(".", "").lstrip("0")), said   # 1, 2 or 5 × a power of ten
        seen.append(said)
    assert seen[0] > seen[2], "the bar follows the zoom"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"scale-bar-{'phone' if device is PHONE else 'desktop'}.png"))
    assert page.errors == [], page.errors
    context.close()


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_ruler_across_a_known_distance_reads_it_within_one_percent(browser, served, device):
    context, page = viewer_page(browser, device)
    page.goto(f"http://127.0.0.1:{served.port}/?image=marked")
    settled(page)
    (x0, y0), (x1, y1) = marks_on_screen(page)
    if device is PHONE:
        page.tap("#measure")
        page.touchscreen.tap(x0, y0)
        assert page.locator("svg.ruler circle").nth(1).get_attribute("hidden") is not None, "one tap: one end"
        assert page.is_hidden("#ruler-label")
        page.touchscreen.tap(x1, y1)
    else:
        page.keyboard.press("m")
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x1, y1, steps=8)
        page.mouse.up()
    page.wait_for_selector("#ruler-label:not([hidden])")
    read = micrometres(page.text_content("#ruler-label .length"))
    assert abs(read - DISTANCE_UM) <= 0.01 * DISTANCE_UM, (read, DISTANCE_UM)
    assert float(page.get_attribute("#ruler-label", "data-mm")) * 1000 == pytest.approx(read, rel=1e-3)
    # Zoomed in, the ruler stays on the image and reads the same; its length can be copied.
    page.keyboard.press("+")
    settled(page)
    assert micrometres(page.text_content("#ruler-label .length")) == read
    page.click("#ruler-label button")
    page.wait_for_function("/Copied|Length/.test(document.getElementById('notice-text').textContent)")
    assert f"{page.text_content('#ruler-label .length')}" in page.text_content("#notice-text")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"ruler-{'phone' if device is PHONE else 'desktop'}.png"))
    page.keyboard.press("Escape")
    assert page.is_hidden("#ruler-label") and page.locator("svg.ruler").count() == 0, "Escape ends the ruler"
    assert page.errors == [], page.errors
    context.close()


def test_an_image_that_does_not_say_what_a_pixel_measures_has_no_scale_bar_and_the_keys_list_the_ruler(browser, served):
    context, page = viewer_page(browser, DESKTOP)
    page.goto(f"http://127.0.0.1:{served.port}/?image=photo")
    settled(page)
    assert page.is_hidden("#scale-bar") and page.is_hidden("#measure")
    page.keyboard.press("m")
    assert not page.evaluate("document.body.classList.contains('measuring')")
    page.keyboard.press("?")
    assert "Ruler" in page.text_content("#help")
    page.keyboard.press("Escape")
    page.goto(f"http://127.0.0.1:{served.port}/?image=marked")
    settled(page)
    page.keyboard.press("i")
    page.wait_for_selector("#info:not([hidden]) dd")
    panel = page.text_content("#info .body")
    assert "aperio" in panel and "20×" in panel and "0.2498 µm" in panel, panel
    assert page.errors == [], page.errors
    context.close()
