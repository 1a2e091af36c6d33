"""The public size, sharp (issue 60, item 1): a tiered photo is shown to a visitor at exactly its public size,
its pixels coming at that size (the public level's tiles, IIIF regions at the limit's scale) rather than from
the power-of-two level below; the visitor zooms to 100 % of those pixels and past them, the picture then drawn
larger, the zoom pill saying how far and "Sign in to see more" offered once; IIIF advertises the size. Against
the real server with an access file, in Chromium on a 1440 × 900 desktop and a 390 × 844 phone at ratio 3."""
import io
import subprocess

import pytest
from PIL import Image

from conftest import ARTIFACTS, DESKTOP, PHONE, Server

W, H, LIMIT = 4000, 3000, 1600          # public 1600 × 1200; the deepest level within it is 1000 × 750


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("public")
    (root / "lib" / "works").mkdir(parents=True)
    subprocess.run(["vips", "gaussnoise", str(root / "lib" / "works" / "scan.jpg"), str(W), str(H)], check=True)
    (root / "access.toml").write_text(f'[folder."works"]\nmax_public_size = {LIMIT}\n')
    server = Server([str(root / "lib"), "--access", str(root / "access.toml"), "--access-log", "off"])
    yield server
    server.stop()


def test_the_public_level_is_exactly_the_limit_and_iiif_says_so(served):
    info = served.json("/iiif/3/works%2Fscan/info.json")
    assert {"width": 1600, "height": 1200} in info["sizes"] and (info["maxWidth"], info["maxHeight"]) == (1600, 1200), info
    v = served.json("/api/images/works%2Fscan/viewport?width=1440&height=784")
    assert v["public"] == {"width": 1600, "height": 1200, "scale": 0.4} and v["fit"], v
    # Fit is 1045 px wide: more than the 1000 px level within the limit, so the public level's tiles (one above it).
    assert v["level"] == 11 and all("/iiif/3/works%2Fscan/" in t["url"] for t in v["tiles"]), v["tiles"][:2]
    assert sum(t["image"]["width"] for t in v["tiles"] if t["y"] == 0) >= W
    widths = 0
    for t in v["tiles"]:
        response, body = served.get(t["url"])
        assert response.status == 200, t["url"]
        size = Image.open(io.BytesIO(body)).size
        assert max(size) <= 256
        if t["y"] == 0:
            widths += size[0]
    assert widths == 1600, "the public level's pixels, exactly the limit's"
    # Zoomed past it the view may go on, drawn larger, up to four times or native size; no deeper tile is named.
    deep = served.json("/api/images/works%2Fscan/viewport?width=1440&height=784&zoom=max")
    assert deep["maxZoom"] == 1 and deep["level"] == 11
    phone = served.json("/api/images/works%2Fscan/viewport?width=390&height=728&dpr=3&zoom=max")
    assert phone["maxZoom"] == pytest.approx(4 * 0.4 / 3) and phone["level"] == 11
    assert all(t["level"] <= 10 for t in deep["prefetch"])


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_visitor_sees_the_public_size_zooms_to_it_and_past_it(served, browser, device):
    label = "phone" if device is PHONE else "desktop"
    ratio = device.get("device_scale_factor", 1)
    context = browser.new_context(**device)
    page = context.new_page()
    errors, refused = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: r.status in (401, 403) and refused.append(r.url))

    def settled():
        page.wait_for_function("window.tileViewer?.state.ready && window.tileViewer.state.pending === 0")
        page.wait_for_timeout(250)
        page.wait_for_function("window.tileViewer.state.pending === 0")
        return page.evaluate("window.tileViewer.state")

    def drawn_width():
        """The photo's width on screen in device pixels (its thumbnail is stretched to the whole image)."""
        return page.evaluate("document.querySelector('.page[data-image=\"works/scan\"] img.base').getBoundingClientRect().width") * ratio

    def loaded_public_tiles():
        return page.evaluate("""[...document.querySelectorAll('.page[data-image="works/scan"] .layer img')]
            .filter(i => i.src.includes('/iiif/3/') && i.complete && i.naturalWidth > 0).map(i => [i.naturalWidth, i.naturalHeight])""")

    page.goto(f"http://127.0.0.1:{served.port}/?image=works%2Fscan")
    fit = settled()
    assert fit["fit"] and fit["public"]["width"] == 1600 and 0 < fit["upscale"] < 1, fit
    assert loaded_public_tiles(), "at fit the picture comes from the public level"
    bar = page.locator(".sign-in-bar")
    assert bar.is_hidden(), "nothing to offer while every pixel shown is one the limit allows"

    page.focus("#viewer")
    page.keyboard.press("1")                              # 100 %: one public pixel per device pixel
    page.wait_for_function("Math.abs(window.tileViewer.state.upscale - 1) < 1e-4")
    full = settled()
    assert abs(drawn_width() - LIMIT) <= 1, (drawn_width(), full)
    assert "upscaled" not in page.text_content("#zoom") and bar.is_hidden()
    assert all(max(size) <= 256 for size in loaded_public_tiles())
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"public-size-100-{label}.png"))

    page.keyboard.press("+")                              # past it: drawn larger, said so, sign-in offered
    page.wait_for_function("window.tileViewer.state.upscale > 1.4")
    settled()
    assert page.text_content("#zoom").startswith("1.5× upscaled"), page.text_content("#zoom")
    bar.wait_for(state="visible")
    assert "Sign in to see more" in bar.inner_text()
    page.screenshot(path=str(ARTIFACTS / f"public-size-upscaled-{label}.png"))
    page.keyboard.press("1")
    page.wait_for_function("Math.abs(window.tileViewer.state.upscale - 1) < 1e-4")
    assert bar.is_hidden()
    page.keyboard.press("+")
    page.wait_for_function("window.tileViewer.state.upscale > 1.4")
    page.wait_for_timeout(300)
    assert bar.is_hidden(), "offered once"
    for _ in range(8):
        page.keyboard.press("+")
    page.wait_for_function("window.tileViewer.state.zoom === window.tileViewer.state.maxZoom")
    top = settled()
    assert top["upscale"] == pytest.approx(min(4, ratio / 0.4), rel=1e-6) and top["level"] == 11, top
    assert not refused, refused
    assert not errors, errors
    context.close()
