"""A JPEG cut short shows the part that decodes, with the warning (issue 60, item 11): the image is the rows
above the cut, its tiles are the file's own pixels there (nothing made up below), every answer and the viewer
say it is cut short, and `build` refuses it. Against the real server, and in Chromium on a 1440 × 900 desktop
and a 390 × 844 phone at device-pixel ratio 3."""
import io
import os
import subprocess
import time

import numpy as np
import pytest
from PIL import Image

from conftest import ARTIFACTS, DESKTOP, PHONE, Server, binary, settled, viewer_page

WIDTH, HEIGHT = 2400, 1600


def photo():
    """Red grows down the rows, green across the columns, with a little noise: where a row comes from shows."""
    rng = np.random.default_rng(60)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    pixels = np.stack([y * 255 // HEIGHT, x * 255 // WIDTH, np.full_like(x, 90)], axis=-1) + rng.integers(0, 12, (HEIGHT, WIDTH, 3))
    out = io.BytesIO()
    Image.fromarray(pixels.clip(0, 255).astype(np.uint8)).save(out, "JPEG", quality=92)
    return out.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cut") / "photos"
    root.mkdir()
    whole = photo()
    (root / "a-whole.jpg").write_bytes(whole)
    (root / "cut-short.jpg").write_bytes(whole[: len(whole) * 3 // 5])
    # A copy that stopped a minute ago (one written in the last seconds may still be being written).
    past = time.time() - 60
    os.utime(root / "cut-short.jpg", (past, past))
    return root, Image.open(io.BytesIO(whole)).convert("RGB")


@pytest.fixture(scope="module")
def served(files):
    server = Server([str(files[0]), "--access-log", "off"])
    server.wait_for_index()
    yield server
    server.stop()


def tile(server, level, x, y):
    response, body = server.get(f"/images/cut-short/tiles/{level}/{x}/{y}.jpg")
    assert response.status == 200, (level, x, y, response.status)
    return np.asarray(Image.open(io.BytesIO(body)).convert("RGB"), dtype=np.int16)


def test_the_image_is_the_rows_that_decode_and_says_so(served, files):
    _, original = files
    entry = served.json("/api/images/cut-short")
    rows = entry["height"]
    assert entry["width"] == WIDTH and HEIGHT * 0.4 < rows < HEIGHT * 0.75, entry
    assert "cut short" in entry["warning"] and f"{rows:,} of its {HEIGHT:,} rows" in entry["warning"], entry["warning"]
    assert "error" not in entry
    listed = {i["id"]: i for i in served.json("/api/images")["images"]}
    assert listed["cut-short"]["warning"] == entry["warning"] and "warning" not in listed["a-whole"]
    full = np.asarray(original, dtype=np.int16)
    top = entry["maxLevel"]
    # Full size, inside and at the cut: the file's own pixels, and the last tile ends where the rows do.
    for x, y in ((2, 1), (5, rows // 256)):
        got = tile(served, top, x, y)
        want = full[y * 256: min((y + 1) * 256, rows), x * 256:(x + 1) * 256]
        assert got.shape == want.shape, (x, y, got.shape, want.shape)
        assert np.abs(got - want).mean() <= 2.0, (x, y, np.abs(got - want).mean())
    # Reduced: a quarter and an eighth, the bottom tile ending at the cut too (no grey made up below it).
    for shrink in (4, 8):
        level = top - shrink.bit_length() + 1
        y = (rows // shrink) // 256
        got = tile(served, level, 0, y)
        part = original.crop((0, y * 256 * shrink, min(WIDTH, 256 * shrink), rows))
        want = np.asarray(part.resize(((part.width + shrink - 1) // shrink, (part.height + shrink - 1) // shrink), Image.BOX), dtype=np.int16)
        assert got.shape == want.shape, (shrink, got.shape, want.shape)
        assert np.abs(got - want).mean() <= 2.5, (shrink, np.abs(got - want).mean())
    info = served.json("/iiif/3/cut-short/info.json")
    assert info["height"] == rows and info["width"] == WIDTH


def test_build_refuses_and_info_warns(files, tmp_path):
    root, _ = files
    built = subprocess.run([binary(), "build", str(root / "cut-short.jpg"), "--out", str(tmp_path / "out"), "--quiet"],
                           capture_output=True, text=True, timeout=120)
    lines = built.stderr.strip().splitlines()
    assert built.returncode != 0 and len(lines) == 1 and "truncated file" in lines[0] and f"of {HEIGHT:,} rows" in lines[0], built.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.jpg"))
    info = subprocess.run([binary(), "info", str(root / "cut-short.jpg")], capture_output=True, text=True, timeout=60)
    assert info.returncode == 0 and "cut short" in info.stdout, info


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_viewer_shows_the_part_with_the_warning(browser, served, device):
    entry = served.json("/api/images/cut-short")
    rows = entry["height"]
    context, page = viewer_page(browser, device)
    page.goto(f"http://127.0.0.1:{served.port}/?image=cut-short")
    state = settled(page)
    assert state["ready"] and not state["error"], state
    assert page.is_visible("#notice") and "cut short" in page.text_content("#notice-text")
    drawn = page.evaluate("""(() => { const r = document.querySelector('.page[data-image="cut-short"] img.base').getBoundingClientRect();
        return [r.left, r.top, r.width, r.height]; })()""")
    assert abs(drawn[2] / drawn[3] - WIDTH / rows) < 0.02, (drawn, rows)
    label = "phone" if device is PHONE else "desktop"
    ARTIFACTS.mkdir(exist_ok=True)
    shot = Image.open(io.BytesIO(page.screenshot(path=str(ARTIFACTS / f"cut-short-{label}.png")))).convert("RGB")
    # The bottom of the picture on screen is the file's last rows above the cut (red high), not grey.
    ratio = shot.width / page.viewport_size["width"]
    x0, x1 = (drawn[0] + drawn[2] * 0.3) * ratio, (drawn[0] + drawn[2] * 0.7) * ratio
    y1 = (drawn[1] + drawn[3]) * ratio - 3 * ratio
    strip = np.asarray(shot.crop((int(x0), int(y1 - 4 * ratio), int(x1), int(y1))), dtype=np.float64).mean(axis=(0, 1))
    expected = rows * 255 / HEIGHT
    assert abs(strip[0] - expected) < 20 and strip[2] < 130, (strip, expected)
    page.keyboard.press("i")
    page.wait_for_selector("#info:not([hidden]) dd")
    assert "cut short" in page.text_content("#info .body")
    page.keyboard.press("i")
    page.evaluate("window.tileViewer.goTo(0)")
    page.wait_for_function("window.tileViewer.state.image === 'a-whole'")
    assert not page.is_visible("#notice"), "the warning is the cut photo's only"
    page.keyboard.press("Escape")
    page.wait_for_selector('#grid .cell[data-id="cut-short"]')
    cell = page.locator('#grid .cell[data-id="cut-short"]')
    assert "partial-file" in cell.get_attribute("class") and "cut short" in cell.get_attribute("title")
    assert "cut short" in cell.get_attribute("aria-label")
    assert page.errors == [], page.errors
    context.close()
